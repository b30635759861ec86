import Foundation

extension URLSessionTransport {
  /// Declines: `URLSessionTransport` opens no connections of its own. Its WebSockets are
  /// URLSession's (`URLSessionWebSocketTask`, Apple platforms), which a client opens only when
  /// this is its own transport — a transport that wraps it and forwards `connect` gets this
  /// refusal, saying so. On Linux, ``CurlTransport`` opens WebSockets.
  public func connect(to url: URL, options: TransportOptions) async throws(HTTPError)
    -> any TransportByteChannel
  {
    throw .invalidRequest(
      reason: "URLSessionTransport opens no connections of its own: its WebSockets"
        + " (URLSessionWebSocketTask, Apple platforms) need it as the client's own transport,"
        + " not wrapped in another; on Linux, CurlTransport opens WebSockets")
  }
}
