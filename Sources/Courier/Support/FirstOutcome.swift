/// The first of several racing outcomes; later ones are ignored. Whoever awaits `value()`
/// (one waiter) is resumed exactly once, whether the outcome came before or after.
package final class FirstOutcome<Value: Sendable>: Sendable {
  private enum State {
    case waiting
    case awaited(CheckedContinuation<Value, Never>)
    case finished(Value)
  }

  private let state = Locked(State.waiting)

  /// A race with no outcome yet.
  package init() {}

  /// Makes `value` the outcome unless another came first; returns whether it did.
  @discardableResult
  package func finish(_ value: Value) -> Bool {
    let (won, continuation): (Bool, CheckedContinuation<Value, Never>?) = state.withLock {
      state in
      switch state {
      case .waiting:
        state = .finished(value)
        return (true, nil)
      case .awaited(let continuation):
        state = .finished(value)
        return (true, continuation)
      case .finished:
        return (false, nil)
      }
    }
    continuation?.resume(returning: value)
    return won
  }

  /// The outcome, if there is one yet.
  package var finished: Value? {
    state.withLock { if case .finished(let value) = $0 { value } else { nil } }
  }

  /// The first outcome, once there is one.
  package func value() async -> Value {
    await withCheckedContinuation { continuation in
      let ready: Value? = state.withLock { state in
        switch state {
        case .finished(let value):
          return value
        case .waiting:
          state = .awaited(continuation)
          return nil
        case .awaited:
          preconditionFailure("FirstOutcome awaited twice")
        }
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }
}
