import Courier

/// A gate that ignores cancellation: `wait()` returns only after `open()`.
public final class Gate: Sendable {
  /// A closed gate.
  public init() {}

  private let waiters = Locked<(open: Bool, continuations: [CheckedContinuation<Void, Never>])>(
    (false, []))

  /// Returns once the gate is open, cancelled or not.
  public func wait() async {
    await withCheckedContinuation { continuation in
      let isOpen = waiters.withLock { state in
        if !state.open { state.continuations.append(continuation) }
        return state.open
      }
      if isOpen { continuation.resume() }
    }
  }

  /// Opens the gate for every waiter, now and later.
  public func open() {
    let continuations = waiters.withLock { state in
      state.open = true
      defer { state.continuations = [] }
      return state.continuations
    }
    for continuation in continuations { continuation.resume() }
  }
}
