import Foundation

/// Hands a streamed response from the pipeline, which runs in a task of the stream's own, to
/// the caller of ``HTTPClient/bytes(_:options:)``, who waits for the head: the head and body
/// once, or the error that came first.
final class StreamHandoff: Sendable {
  typealias Outcome = Result<(head: HTTPResponse, body: TransportResponseBody), HTTPError>

  private let outcome = FirstOutcome<Outcome>()

  /// Hands over an acceptable response. A second response (a retry after the body has
  /// started) would repeat bytes the reader already has, and fails; a response that comes
  /// after the caller gave up is stopped.
  func deliver(head: HTTPResponse, body: TransportResponseBody) throws(HTTPError) {
    guard outcome.finish(.success((head, body))) else {
      body.cancel()
      if case .success? = outcome.finished { throw .transport(URLError(.networkConnectionLost)) }
      throw .cancelled
    }
  }

  /// The exchange failed, or the caller gave up, before a response was handed over.
  func fail(_ error: HTTPError) {
    outcome.finish(.failure(error))
  }

  /// The response, or the error that came first.
  func value() async -> Outcome {
    await outcome.value()
  }
}
