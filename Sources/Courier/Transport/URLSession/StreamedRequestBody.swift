import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A streamed request body that a URLSession upload task asks for when it needs it (Apple
/// platforms: `urlSession(_:task:needNewBodyStream:)`; see
/// `StreamedRequestBody+Platform.swift`), and stops reading when the task ends.
final class StreamedRequestBody: Sendable {
  /// The body.
  let body: TransportRequestBody
  /// Ends the request with the error: the body's sequence threw, and a body cut short must
  /// not reach the server as if it were whole.
  let failed: @Sendable (HTTPError) -> Void
  /// What to run when the task ends; `nil` once it has.
  private let stops = Locked<[@Sendable () -> Void]?>([])

  init(_ body: TransportRequestBody, failed: @escaping @Sendable (HTTPError) -> Void) {
    self.body = body
    self.failed = failed
  }

  /// Runs `stop` when the task ends, or at once if it has: a body stream made as the task
  /// ends must not be left running.
  func onStop(_ stop: @escaping @Sendable () -> Void) {
    let kept = stops.withLock { stops in
      stops?.append(stop)
      return stops != nil
    }
    if !kept { stop() }
  }

  /// The task has ended: whatever reads the body stops, also what starts reading later.
  func stop() {
    let stops = self.stops.withLock { stops in
      defer { stops = nil }
      return stops ?? []
    }
    for stop in stops { stop() }
  }
}
