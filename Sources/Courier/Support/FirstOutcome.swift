/// The first of several racing outcomes; later ones are ignored. Whoever awaits `value()`
/// is resumed exactly once, whether the outcome came before or after.
package final class FirstOutcome<Value: Sendable>: Sendable {
  private enum State {
    case waiting
    case awaited(CheckedContinuation<Value, Never>)
    case finished(Value)
  }

  private let state = Locked(State.waiting)

  /// A race with no outcome yet.
  package init() {}

  /// Makes `value` the outcome unless another came first.
  package func finish(_ value: Value) {
    let continuation: CheckedContinuation<Value, Never>? = state.withLock { state in
      switch state {
      case .waiting:
        state = .finished(value)
        return nil
      case .awaited(let continuation):
        state = .finished(value)
        return continuation
      case .finished:
        return nil
      }
    }
    continuation?.resume(returning: value)
  }

  /// The first outcome, once there is one.
  package func value() async -> Value {
    await withCheckedContinuation { continuation in
      let ready: Value? = state.withLock { state in
        if case .finished(let value) = state { return value }
        state = .awaited(continuation)
        return nil
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }
}
