import Courier

/// Whether a connection's client has gone away, and the tasks waiting to hear it: fired
/// once, waited on by any number of tasks, each of which can also leave by being cancelled.
final class ClosedSignal: Sendable {
  private struct State: Sendable {
    var closed = false
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextWaiter = 0
  }

  private let state = Locked(State())

  /// Whether it has fired.
  var isClosed: Bool {
    state.withLock { $0.closed }
  }

  /// Fires, waking every waiter; returns whether this call was the one that fired.
  @discardableResult
  func fire() -> Bool {
    let (fired, waiters) = state.withLock { state in
      guard !state.closed else { return (false, [CheckedContinuation<Void, Never>]()) }
      state.closed = true
      defer { state.waiters = [:] }
      return (true, Array(state.waiters.values))
    }
    for waiter in waiters { waiter.resume() }
    return fired
  }

  /// Returns once it has fired, or when the calling task is cancelled.
  func wait() async {
    let id = state.withLock { state in
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let now = state.withLock { state in
          guard !state.closed, !Task.isCancelled else { return true }
          state.waiters[id] = continuation
          return false
        }
        if now { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
  }
}
