import Foundation

/// A connection that moves bytes both ways, from ``HTTPTransport/connect(to:options:)``:
/// what a transport gives for the protocols Courier runs above it (WebSocket's). Nothing is
/// read from the network unless a ``read()`` is waiting, so a reader that stops holds the peer
/// back through TCP.
///
/// One ``read()`` and one ``write(_:)`` may wait at the same time, each from one caller.
public protocol TransportByteChannel: AnyObject, Sendable {
  /// The bytes that have arrived (at least one), waiting for some if none has; `nil` once the
  /// peer has ended the stream. Throws when the connection failed, or
  /// ``HTTPError/cancelled`` once ``close()`` was called.
  func read() async throws(HTTPError) -> Data?
  /// Writes `bytes`, all of them, and returns once they are handed to the network (the
  /// socket, or the TLS layer above it): a peer that does not read holds the writer back.
  /// Throws when the connection failed, or ``HTTPError/cancelled`` once ``close()`` was called.
  func write(_ bytes: Data) async throws(HTTPError)
  /// Ends the connection at once: a waiting ``read()`` or ``write(_:)`` fails with
  /// ``HTTPError/cancelled``, as does any later one. Calling it again does nothing.
  func close()
}

extension HTTPTransport {
  /// Declines: this transport does not open connections.
  public func connect(to url: URL, options: TransportOptions) async throws(HTTPError)
    -> any TransportByteChannel
  {
    throw .invalidRequest(reason: "\(Self.self) does not open connections")
  }
}

/// Where a byte channel connects: the host, the port and whether TLS runs on the connection,
/// read from an `http`, `https`, `ws` or `wss` URL (any other is refused with
/// ``HTTPError/invalidRequest(reason:)``, as is one without a host).
package struct ChannelEndpoint: Sendable, Equatable {
  package var host: String
  package var port: Int
  package var usesTLS: Bool

  package init(_ url: URL) throws(HTTPError) {
    guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: true),
      let scheme = parts.scheme?.lowercased()
    else { throw .invalidRequest(reason: "a connection needs a URL with a scheme") }
    switch scheme {
    case "http", "ws": usesTLS = false
    case "https", "wss": usesTLS = true
    default:
      throw .invalidRequest(
        reason: "a connection's URL must be http, https, ws or wss, not \(scheme)")
    }
    guard let host = parts.host, !host.isEmpty else {
      throw .invalidRequest(reason: "the URL \(Redaction.url(url)) has no host")
    }
    self.host = host
    port = parts.port ?? (usesTLS ? 443 : 80)
  }
}
