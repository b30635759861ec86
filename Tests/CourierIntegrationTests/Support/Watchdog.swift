import Courier
import Testing

/// Awaits `operation`, but gives up after `limit` and records a failure, so that a
/// continuation that is never resumed shows up as a failed test instead of a hung run.
///
/// The limit is a failure detector, not a timing assumption: nothing waits for it unless
/// the code under test is broken.
@discardableResult
func watched<T: Sendable>(
  within limit: Duration = .seconds(20),
  sourceLocation: SourceLocation = #_sourceLocation,
  _ operation: @escaping @Sendable () async -> T
) async -> T? {
  let race = FirstOutcome<T?>()
  let work = Task { race.finish(await operation()) }
  let watchdog = Task {
    try? await Task.sleep(for: limit)
    race.finish(nil)
  }
  let value = await race.value()
  watchdog.cancel()
  if value == nil {
    work.cancel()
    Issue.record(
      "gave up after \(limit): the awaited operation never finished", sourceLocation: sourceLocation
    )
  }
  return value
}

/// The first of several racing outcomes; later ones are ignored.
private final class FirstOutcome<Value: Sendable>: Sendable {
  private enum State {
    case waiting
    case awaited(CheckedContinuation<Value, Never>)
    case finished(Value)
  }

  private let state = Locked(State.waiting)

  func finish(_ value: Value) {
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

  func value() async -> Value {
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
