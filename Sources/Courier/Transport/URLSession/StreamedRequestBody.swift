import Foundation

/// A streamed request body that a URLSession upload task asks for when it needs it (Apple
/// platforms: `urlSession(_:task:needNewBodyStream:)`; see
/// `StreamedRequestBody+Platform.swift`), and stops reading when the task ends.
final class StreamedRequestBody: Sendable {
  let body: TransportRequestBody
  /// Ends the request with the error: the body's sequence threw, and a body cut short must
  /// not reach the server as if it were whole.
  let failed: @Sendable (HTTPError) -> Void
  /// What stops the reader now running, if any; `ended` once the task has.
  private let reader = Locked<(stop: (@Sendable () -> Void)?, ended: Bool)>((nil, false))

  init(_ body: TransportRequestBody, failed: @escaping @Sendable (HTTPError) -> Void) {
    self.body = body
    self.failed = failed
  }

  /// Records `stop` as what stops the reader of the body now starting, and stops the one
  /// before it: URLSession asks for the body again when it resends it (after a challenge or a
  /// recoverable error), and the abandoned reader must neither go on reading nor fail the
  /// task that goes on without it. Runs `stop` at once if the task has ended: a body stream
  /// made as the task ends must not be left running.
  func onStop(_ stop: @escaping @Sendable () -> Void) {
    let (previous, ended) = reader.withLock { reader in
      defer { if !reader.ended { reader.stop = stop } }
      return (reader.stop, reader.ended)
    }
    previous?()
    if ended { stop() }
  }

  /// The task has ended: whatever reads the body stops, also what starts reading later.
  func stop() {
    let stop = reader.withLock { reader in
      defer { reader = (nil, true) }
      return reader.stop
    }
    stop?()
  }
}
