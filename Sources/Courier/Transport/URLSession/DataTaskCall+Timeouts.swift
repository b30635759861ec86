import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A call's deadline and idle timeout, as the transport's ``DeadlineTimer`` sees them: when
/// to look at the call first, and at each look whether it has timed out or when to look again.
extension DataTaskCall: DeadlineTimed {
  /// `duration` in nanoseconds: 0 when not positive, `.max` when too long to count.
  static func nanoseconds(_ duration: Duration) -> UInt64 {
    TransferClock.nanoseconds(duration)
  }

  /// When the timer must first look at this call: its deadline or the end of its first idle
  /// period, whichever comes first; `nil` when it has neither.
  func firstWake() -> UInt64? {
    let idleEnd = idleNanoseconds.map { state.withLock { $0.lastActivity } &+ $0 }
    switch (deadline, idleEnd) {
    case (let deadline?, let idleEnd?): return min(deadline, idleEnd)
    case (let deadline?, nil): return deadline
    case (nil, let idleEnd?): return idleEnd
    case (nil, nil): return nil
    }
  }

  /// The timer's look at the call at `now`: past the deadline, or idle for the whole idle
  /// timeout, the call ends with ``HTTPError/timedOut`` and this returns `nil`; otherwise it
  /// returns when to look again.
  ///
  /// Bytes seen one chunk at a time mark activity as they come; for tasks whose chunks
  /// Courier does not see, the task's byte counters are compared with the last look, so a
  /// stall there is noticed within twice the idle timeout.
  func timerFired(now: UInt64) -> UInt64? {
    let ended = state.withLock {
      switch $0.phase {
      case .idle, .awaitingHead, .streaming: false
      case .endedBeforeStart, .finished: true
      }
    }
    if ended { return nil }
    guard let idle = idleNanoseconds, deadline.map({ now < $0 }) ?? true else {
      end(with: .timedOut)
      return nil
    }
    let counters = runningTask.map { $0.countOfBytesReceived &+ $0.countOfBytesSent } ?? 0
    let lastActivity = state.withLock { state in
      if counters != state.countersSeen {
        state.countersSeen = counters
        state.lastActivity = max(state.lastActivity, now)
      }
      return state.lastActivity
    }
    guard now < lastActivity &+ idle else {
      end(with: .timedOut)
      return nil
    }
    return min(lastActivity &+ idle, deadline ?? .max)
  }

  /// A byte moved: the idle period starts again.
  func touch(_ state: inout State) {
    guard idleNanoseconds != nil else { return }
    state.lastActivity = DispatchTime.now().uptimeNanoseconds
  }

  /// The task, while the caller waits for it.
  var runningTask: URLSessionTask? {
    state.withLock {
      switch $0.phase {
      case .awaitingHead(_, let task), .streaming(let task, _): task
      case .idle, .endedBeforeStart, .finished: nil
      }
    }
  }
}
