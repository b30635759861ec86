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
  private let stops = Locked<[@Sendable () -> Void]>([])

  init(_ body: TransportRequestBody, failed: @escaping @Sendable (HTTPError) -> Void) {
    self.body = body
    self.failed = failed
  }

  /// Runs `stop` when the task ends.
  func onStop(_ stop: @escaping @Sendable () -> Void) {
    stops.withLock { $0.append(stop) }
  }

  /// The task has ended: whatever reads the body stops.
  func stop() {
    let stops = self.stops.withLock { stops in
      defer { stops = [] }
      return stops
    }
    for stop in stops { stop() }
  }
}
