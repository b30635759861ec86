import Dispatch

/// The deadline and idle timeout of one exchange, for a transport that sees its bytes move
/// (the stub; any transport of Courier's that is not URLSession's): woken by a
/// ``DeadlineTimer``, it calls `onTimeout` once when the deadline passes or no byte has
/// moved for the idle timeout.
package final class TransferClock: DeadlineTimed {
  private let deadline: UInt64?
  private let idle: UInt64?
  private let lastActivity: Locked<UInt64>
  private let onTimeout: @Sendable () -> Void

  /// A clock for `options`' deadline and idle timeout, calling `onTimeout` when one passes.
  package init(
    deadline: ContinuousClock.Instant?, idleTimeout: Duration?,
    onTimeout: @escaping @Sendable () -> Void
  ) {
    let now = DispatchTime.now().uptimeNanoseconds
    self.deadline = deadline.map { now &+ Self.nanoseconds(ContinuousClock.now.duration(to: $0)) }
    idle = idleTimeout.map(Self.nanoseconds)
    lastActivity = Locked(now)
    self.onTimeout = onTimeout
  }

  /// When the timer must first look, or `nil` when there is neither a deadline nor an idle
  /// timeout.
  package var firstWake: UInt64? {
    let idleEnd = idle.map { lastActivity.withLock { $0 } &+ $0 }
    return [deadline, idleEnd].compactMap { $0 }.min()
  }

  /// A byte moved: the idle period starts again.
  package func touch() {
    guard idle != nil else { return }
    lastActivity.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
  }

  package func timerFired(now: UInt64) -> UInt64? {
    if let deadline, now >= deadline {
      onTimeout()
      return nil
    }
    guard let idle else { return deadline }
    let idleEnd = lastActivity.withLock { $0 } &+ idle
    if now >= idleEnd {
      onTimeout()
      return nil
    }
    return min(idleEnd, deadline ?? .max)
  }

  /// `duration` in nanoseconds: 0 when not positive, `.max` when too long to count.
  package static func nanoseconds(_ duration: Duration) -> UInt64 {
    guard duration > .zero else { return 0 }
    let (seconds, attoseconds) = duration.components
    let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
    return overflow ? .max : whole &+ UInt64(attoseconds / 1_000_000_000)
  }
}
