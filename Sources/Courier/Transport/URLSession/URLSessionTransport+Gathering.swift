import Foundation

extension URLSessionTransport {
  /// `body` as a whole file for an upload task (a stream gathered into a temporary file
  /// first, where URLSession cannot send it as it is produced: `streamsRequestBodies`), within
  /// the request's deadline: a producer still going when it passes fails the request with
  /// ``HTTPError/timedOut``, as the deadline does once the task runs, instead of holding the
  /// caller for as long as the producer takes. What was gathered goes with its spool.
  /// (Waiting for the producer is not idleness: the idle timeout starts with the task.)
  static func gathered(
    _ body: TransportRequestBody, by deadline: ContinuousClock.Instant?,
    clock: any TransportClock
  ) async throws(HTTPError) -> SessionTransfer.Upload {
    guard let deadline, body.file == nil else { return try await body.wholeFile() }
    // What was gathered too late goes with its spool.
    return try await clock.within(deadline, discarding: { _ in }, doing: body.wholeFile)
  }
}
