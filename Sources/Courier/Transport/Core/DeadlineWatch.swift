/// An exchange's ``Deadlines`` for a transport that keeps its own answer state (the stub):
/// woken by a ``DeadlineTimer``, it calls `onTimeout` once when the deadline passes or no
/// byte has moved for the idle timeout. (Courier's own transports keep their deadlines in
/// their ``TransportCall``.)
package final class DeadlineWatch: DeadlineTimed {
  private let deadlines: Locked<Deadlines>
  private let clock: any TransportClock
  private let onTimeout: @Sendable () -> Void

  /// A watch over `options`' deadline and idle timeout, starting now on `clock`, calling
  /// `onTimeout` when one passes.
  package init(
    _ options: TransportOptions, clock: any TransportClock,
    onTimeout: @escaping @Sendable () -> Void
  ) {
    deadlines = Locked(Deadlines(options, startingAt: clock.now))
    self.clock = clock
    self.onTimeout = onTimeout
  }

  /// When the timer must first look, or `nil` when there is neither a deadline nor an idle
  /// timeout.
  package var firstWake: ContinuousClock.Instant? { deadlines.withLock { $0.due } }

  /// A byte moved: the idle period starts again.
  package func touch() {
    let now = clock.now
    deadlines.withLock { $0.touch(at: now) }
  }

  package func timerFired(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
    let (overdue, due) = deadlines.withLock { ($0.isOverdue(at: now), $0.due) }
    if overdue { onTimeout() }
    return overdue ? nil : due
  }
}
