import Courier

/// A clock that moves only when a test says so: deadlines, idle timeouts, retries' backoff
/// and reconnection delays run on it in microseconds and in the same order every time.
///
/// Its instants are real `ContinuousClock` instants, starting from the one it was made at.
/// `wait(until:)` suspends until ``advance(by:)`` passes the instant (or the waiting task
/// is cancelled); ``sleepers(atLeast:)`` waits until that many are waiting, so that a test
/// moves time only once what it tests is waiting for it.
public final class ManualClock: TransportClock, Sendable {
  private struct Sleeper {
    let id: UInt64
    let until: ContinuousClock.Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now: ContinuousClock.Instant
    var sleepers: [Sleeper] = []
    var nextID: UInt64 = 0
    var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
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
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state in
        if state.sleepers.count >= count { return true }
        state.watchers.append((count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// Returns once the clock has been moved to `instant` or past it; throws
  /// `CancellationError` when the waiting task is cancelled first.
  public func wait(until instant: ContinuousClock.Instant) async throws {
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
          let count = state.sleepers.count
          let ready = state.watchers.filter { $0.count <= count }.map(\.continuation)
          state.watchers.removeAll { $0.count <= count }
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

/// A manual clock is a `Clock` too, for public API that takes `some Clock<Duration>`
/// (``RetryPolicy``'s waits): the same instants, the same sleepers.
extension ManualClock: Clock {
  /// Time moves only when told; any resolution is exact.
  public var minimumResolution: Duration { .zero }

  /// Returns once the clock has been moved to `deadline` or past it.
  public func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
    try await wait(until: deadline)
  }
}
