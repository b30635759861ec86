/// The clock Courier reads time from and waits on: `ContinuousClock` in use, a manual clock
/// in tests, so that a 30-second timeout, a retry's backoff or an event stream's reconnection
/// delay is tested in microseconds and deterministically.
///
/// Its instants are `ContinuousClock`'s, the unit of ``TransportOptions/deadline``: a
/// manual clock starts at some real instant and moves only when told.
package protocol TransportClock: Sendable {
  /// The current instant.
  var now: ContinuousClock.Instant { get }
  /// Returns at or after `instant`; throws `CancellationError` when the calling task is
  /// cancelled first.
  func wait(until instant: ContinuousClock.Instant) async throws
}

extension TransportClock {
  /// Returns after `duration`; throws `CancellationError` when the calling task is
  /// cancelled first.
  package func wait(for duration: Duration) async throws {
    try await wait(until: now.advanced(by: duration))
  }
}

extension ContinuousClock: TransportClock {
  package func wait(until instant: ContinuousClock.Instant) async throws {
    try await sleep(until: instant, tolerance: nil)
  }
}
