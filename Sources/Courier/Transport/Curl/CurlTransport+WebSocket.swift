// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation
  import FoundationNetworking

  extension CurlTransport {
    /// Upgrades `request` to a WebSocket connection over HTTP/1.1: libcurl connects
    /// (through `https_proxy`/`http_proxy` with a CONNECT tunnel, and TLS for `wss`/`https`),
    /// Courier runs the handshake and the framing. `ws` and `wss` URLs are read as `http` and
    /// `https`. The transport's one thread carries every connection, as it carries requests:
    /// a connection costs its socket, and no thread.
    public func openWebSocket(_ request: TransportRequest, options: TransportWebSocketOptions)
      async throws(HTTPError) -> TransportWebSocket
    {
      guard !Task.isCancelled else { throw .cancelled }
      let url = try WebSocketHandshake.httpURL(for: request.head.url)
      return try await CurlWebSocket.open(
        request, url: url, options: options, settings: settings, driver: driver.get(),
        timer: deadlines)
    }
  }
#endif
