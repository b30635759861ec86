import Courier
import Testing

/// Waits (under a watchdog) for `task` and records an issue unless it threw
/// ``HTTPError/cancelled``.
public func expectCancelled<T: Sendable>(
  _ task: Task<T, any Error>, sourceLocation: SourceLocation = #_sourceLocation
) async {
  guard let result = await watched(sourceLocation: sourceLocation, { await task.result }) else {
    return
  }
  guard case .failure(let error as HTTPError) = result, error == .cancelled else {
    Issue.record("expected HTTPError.cancelled, got \(result)", sourceLocation: sourceLocation)
    return
  }
}
