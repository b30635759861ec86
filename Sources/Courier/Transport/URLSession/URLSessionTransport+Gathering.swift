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
    typealias Outcome = Result<SessionTransfer.Upload, HTTPError>
    let outcome = await withTaskGroup(of: Outcome?.self) { group -> Outcome? in
      group.addTask {
        do throws(HTTPError) {
          return .success(try await body.wholeFile())
        } catch {
          return .failure(error)
        }
      }
      group.addTask {
        do {
          try await clock.wait(until: deadline)
        } catch {
          return nil  // cancelled: the body came first, or the caller left
        }
        return .failure(.timedOut)
      }
      defer { group.cancelAll() }
      return await group.next() ?? nil
    }
    // A caller that left meanwhile cut the body's stream short: nothing of it is sent.
    guard !Task.isCancelled else { throw .cancelled }
    guard let outcome else { throw .cancelled }
    return try outcome.get()
  }
}
