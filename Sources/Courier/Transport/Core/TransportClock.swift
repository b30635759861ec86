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
  /// `work`'s outcome, or ``HTTPError/timedOut`` once `deadline` passes first, when `work`
  /// is cancelled; what it made after all (its result came too late) goes to `discard`. A
  /// caller cancelled meanwhile gets ``HTTPError/cancelled``. For waits before an exchange
  /// starts, which its deadline bounds as it bounds the exchange.
  package func within<T: Sendable>(
    _ deadline: ContinuousClock.Instant, discarding discard: @escaping @Sendable (T) -> Void,
    doing work: @escaping @Sendable () async throws(HTTPError) -> T
  ) async throws(HTTPError) -> T {
    typealias Outcome = Result<T, HTTPError>
    let outcome = await withTaskGroup(of: Outcome?.self) { group -> Outcome? in
      group.addTask {
        do throws(HTTPError) {
          return .success(try await work())
        } catch {
          return .failure(error)
        }
      }
      group.addTask {
        do {
          try await self.wait(until: deadline)
        } catch {
          return nil  // cancelled: the work came first, or the caller left
        }
        return .failure(.timedOut)
      }
      var first: Outcome?
      while let next = await group.next() {
        guard let next else { continue }
        guard first == nil else {
          if case .success(let late) = next { discard(late) }
          continue
        }
        first = next
        group.cancelAll()
      }
      return first
    }
    guard !Task.isCancelled, let outcome else {
      if case .success(let made)? = outcome { discard(made) }
      throw .cancelled
    }
    return try outcome.get()
  }
}
