import Courier

/// A `Clock` that moves only when a test says so: a `RetryPolicy`'s backoff of minutes runs
/// in microseconds, and in the same order every time.
///
/// ```swift
/// let clock = ManualClock()
/// configuration.middleware = [RetryPolicy(jitter: .none, clock: clock)]
/// let call = Task { try await client.send(endpoint) }   // the stub answers 503, then 200
/// await clock.sleepers(atLeast: 1)                      // the backoff has begun
/// clock.advance(by: .milliseconds(500))                 // and ends: the retry goes out
/// ```
///
/// Its instants are real `ContinuousClock` instants, starting from the one it was made at.
/// A sleep returns once ``advance(by:)`` passes its instant (or throws when the sleeping task
/// is cancelled); ``sleepers(atLeast:)`` waits until that many sleep, so that a test moves
/// time only once what it tests waits for it. (Courier's own tests also run deadlines, idle
/// timeouts and reconnection delays on it.)
public final class ManualClock: Clock, TransportClock, Sendable {
  private struct Sleeper {
    let id: UInt64
    let until: ContinuousClock.Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  /// A test waiting for `count` sleepers (until `until` or later, when given).
  private typealias Watcher = (
    count: Int, until: ContinuousClock.Instant?, continuation: CheckedContinuation<Void, Never>
  )

  private struct State {
    var now: ContinuousClock.Instant
    var sleepers: [Sleeper] = []
    var nextID: UInt64 = 0
    var watchers: [Watcher] = []

    /// Whether `count` tasks sleep, counting those until `instant` or later when given.
    func has(_ count: Int, until instant: ContinuousClock.Instant?) -> Bool {
      guard let instant else { return sleepers.count >= count }
      return sleepers.lazy.filter { $0.until >= instant }.count >= count
    }
  }

  private let state: Locked<State>

  /// A clock standing at the present instant until moved.
  public init() {
    state = Locked(State(now: ContinuousClock.now))
  }

  /// Where the clock stands.
  public var now: ContinuousClock.Instant { state.withLock { $0.now } }

  /// Moves the clock on by `duration`, waking every sleeper whose instant it passes.
  public func advance(by duration: Duration) {
    let woken = state.withLock { state -> [Sleeper] in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let due = state.sleepers.filter { $0.until <= now }
      state.sleepers.removeAll { $0.until <= now }
      return due
    }
    for sleeper in woken { sleeper.continuation.resume() }
  }

  /// Returns once at least `count` tasks are waiting on the clock.
  public func sleepers(atLeast count: Int) async {
    await sleepers(atLeast: count, until: nil)
  }

  /// Returns once at least `count` tasks are waiting on the clock until `instant` or later:
  /// for a test that must tell a wait begun after some event from one begun before it.
  package func sleepers(atLeast count: Int, until instant: ContinuousClock.Instant?) async {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state in
        if state.has(count, until: instant) { return true }
        state.watchers.append((count, instant, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// Returns once the clock has been moved to `instant` or past it; throws
  /// `CancellationError` when the waiting task is cancelled first.
  package func wait(until instant: ContinuousClock.Instant) async throws {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let (resumeNow, watchers) = state.withLock {
          state -> (Bool, [CheckedContinuation<Void, Never>]) in
          if instant <= state.now || Task.isCancelled { return (true, []) }
          state.sleepers.append(Sleeper(id: id, until: instant, continuation: continuation))
          let current = state
          let isReady = { (watcher: Watcher) in current.has(watcher.count, until: watcher.until) }
          let ready = state.watchers.filter(isReady).map(\.continuation)
          state.watchers.removeAll(where: isReady)
          return (false, ready)
        }
        for watcher in watchers { watcher.resume() }
        if resumeNow {
          if Task.isCancelled {
            continuation.resume(throwing: CancellationError())
          } else {
            continuation.resume()
          }
        }
      }
    } onCancel: {
      let sleeper = state.withLock { state -> Sleeper? in
        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return state.sleepers.remove(at: index)
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }
}

extension ManualClock {
  /// Time moves only when told; any resolution is exact.
  public var minimumResolution: Duration { .zero }

  /// Returns once the clock has been moved to `deadline` or past it.
  public func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
    try await wait(until: deadline)
  }
}
