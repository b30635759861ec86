import Courier
import Testing

/// Awaits `operation`, but gives up after `limit` and records a failure, so that a
/// continuation that is never resumed shows up as a failed test instead of a hung run.
///
/// The limit is a failure detector, not a timing assumption: nothing waits for it unless
/// the code under test is broken.
@discardableResult
public func watched<T: Sendable>(
  within limit: Duration = .seconds(45),
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
