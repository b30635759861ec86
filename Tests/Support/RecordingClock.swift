import Courier

/// A clock whose every sleep returns at once, moving the clock on by what was asked, and is
/// recorded: for tests that check which waits a policy asks for, not how they pass.
public final class RecordingClock: Clock, Sendable {
  private let state = Locked((now: ContinuousClock.now, sleeps: [Duration]()))

  /// A clock standing at the present instant.
  public init() {}

  /// Where the clock stands: the start, moved on by every sleep.
  public var now: ContinuousClock.Instant { state.withLock { $0.now } }

  /// Exact.
  public var minimumResolution: Duration { .zero }

  /// Every sleep asked for, in order.
  public var sleeps: [Duration] { state.withLock { $0.sleeps } }

  /// Records the sleep and returns at once (throwing when the task is cancelled).
  public func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
    try Task.checkCancellation()
    state.withLock { state in
      state.sleeps.append(state.now.duration(to: deadline))
      state.now = max(state.now, deadline)
    }
  }
}
