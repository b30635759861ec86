/// The clock Courier reads time from and waits on: `ContinuousClock` in use, a manual clock
/// in tests, so that a 30-second timeout, a retry's backoff or an event stream's reconnection
/// delay is tested in microseconds and deterministically.
///
/// Its instants are `ContinuousClock`'s, the unit of ``TransportOptions/deadline``: a
/// manual clock starts at some real instant and moves only when told.
package protocol TransportClock: Sendable {
  /// The current instant.
  var now: ContinuousClock.Instant { get }
  /// Returns at or after `instant`; throws `CancellationError` when the calling task is
  /// cancelled first.
  func wait(until instant: ContinuousClock.Instant) async throws
}

extension TransportClock {
  /// Returns after `duration`; throws `CancellationError` when the calling task is
  /// cancelled first.
  package func wait(for duration: Duration) async throws {
    try await wait(until: now.advanced(by: duration))
  }
}

extension ContinuousClock: TransportClock {
  /// Sleeps at most ``longestSleep`` at a time: the system's sleep takes its instant in whole
  /// seconds of an `Int64`, and trapped on one further off (a timeout of
  /// `.seconds(Int64.max)`, meant as "never", crashed the process).
  package func wait(until instant: ContinuousClock.Instant) async throws {
    while true {
      let now = self.now
      guard now.duration(to: instant) > Self.longestSleep else { break }
      try await sleep(until: now.advanced(by: Self.longestSleep), tolerance: nil)
    }
    try await sleep(until: instant, tolerance: nil)
  }

  /// The longest one sleep of ``wait(until:)`` lasts: about 34 years.
  static let longestSleep = Duration.seconds(1 << 30)
}

/// Any `Clock<Duration>` as a ``TransportClock``: its instants are mapped to `ContinuousClock`
/// ones by their distance from the instant the adapter was made, so that a public API takes
/// `some Clock<Duration>` (a manual clock in the user's tests) and the core keeps one unit.
struct ClockAdapter<Base: Clock>: TransportClock where Base.Duration == Duration {
  let base: Base
  let origin: Base.Instant
  let continuousOrigin: ContinuousClock.Instant

  init(_ base: Base) {
    self.base = base
    origin = base.now
    continuousOrigin = ContinuousClock.now
  }

  var now: ContinuousClock.Instant {
    continuousOrigin.advanced(by: origin.duration(to: base.now))
  }

  func wait(until instant: ContinuousClock.Instant) async throws {
    try await base.sleep(
      until: origin.advanced(by: continuousOrigin.duration(to: instant)), tolerance: nil)
  }
}

extension Clock where Duration == Swift.Duration {
  /// This clock as the core's ``TransportClock``: itself when it is one already.
  var transportClock: any TransportClock {
    (self as? any TransportClock) ?? ClockAdapter(self)
  }
}

extension TransportClock {
  /// `work`'s outcome, or ``HTTPError/timedOut`` once `deadline` passes first; a caller
  /// cancelled meanwhile gets ``HTTPError/cancelled``. Either way `work` is cancelled and
  /// not waited for: a producer that ignores cancellation cannot hold the caller. What it
  /// makes after all (its result came too late) goes to `discard`. For waits before an
  /// exchange starts, which its deadline bounds as it bounds the exchange.
  ///
  /// `work` and the wait for the deadline run in tasks of their own, not a task group's
  /// children: a group waits for its children however long they take.
  package func within<T: Sendable>(
    _ deadline: ContinuousClock.Instant, discarding discard: @escaping @Sendable (T) -> Void,
    doing work: @escaping @Sendable () async throws(HTTPError) -> T
  ) async throws(HTTPError) -> T {
    let race = FirstOutcome<Result<T, HTTPError>>()
    let worker = Task {
      let outcome: Result<T, HTTPError>
      do throws(HTTPError) {
        outcome = .success(try await work())
      } catch {
        outcome = .failure(error)
      }
      if !race.finish(outcome), case .success(let late) = outcome { discard(late) }
    }
    let timer = Task {
      guard (try? await self.wait(until: deadline)) != nil else { return }  // the race is over
      race.finish(.failure(.timedOut))
    }
    let outcome = await withTaskCancellationHandler {
      await race.value()
    } onCancel: {
      race.finish(.failure(.cancelled))
    }
    worker.cancel()
    timer.cancel()
    return try outcome.get()
  }
}
