import Foundation

#if canImport(FoundationNetworking)
  extension URLSessionTransport: PlatformWebSocketTransport {
    /// Declines on Linux: FoundationNetworking's `URLSessionWebSocketTask` needs a libcurl
    /// with WebSocket support, which Debian's 7.88 lacks (its tasks fail with "WebSockets
    /// not supported by libcurl"). ``CurlTransport``, the default on Linux, opens them.
    func openPlatformWebSocket(_ request: TransportRequest, options: TransportWebSocketOptions)
      async throws(HTTPError) -> TransportWebSocket
    {
      throw .invalidRequest(
        reason:
          "URLSessionTransport cannot open WebSocket connections on Linux (FoundationNetworking's"
          + " libcurl has no WebSocket support); use CurlTransport, the default on Linux")
    }
  }
#else
  extension URLSessionTransport: PlatformWebSocketTransport {
    /// Opens a `URLSessionWebSocketTask` on the transport's session and returns once the
    /// server has accepted the upgrade. The platform reads ahead of the caller as it sees
    /// fit; ``TransportWebSocketOptions/readAhead`` does not apply. A refusal is
    /// ``HTTPError/unacceptableStatus(_:)`` without its body (the task does not keep it). TLS
    /// challenges get the transport's rules, as its requests do (its ``TLSChallengeHandler``,
    /// ``ServerTrust`` and ``ClientIdentity``), and a server refused there fails the opening
    /// with the same error as a request, not as cancelled.
    func openPlatformWebSocket(_ request: TransportRequest, options: TransportWebSocketOptions)
      async throws(HTTPError) -> TransportWebSocket
    {
      if let refusal { throw refusal }
      guard !Task.isCancelled else { throw .cancelled }
      // The task writes the handshake: it gets the request's own fields, less those the
      // handshake owns, as CurlTransport's upgrade does.
      var (head, offered) = try WebSocketHandshake.platformRequest(
        request.head, offering: options.subprotocols)
      head.url = try WebSocketHandshake.webSocketURL(for: head.url)
      // Checked again where the task is made: a session invalidated meanwhile refuses it.
      if let refusal { throw refusal }
      if let deadline = options.transport.deadline {
        head.timeoutInterval = max(0.001, (deadline - .now).seconds)
      }
      let task = session.webSocketTask(with: head)
      task.maximumMessageSize = options.maximumMessageSize
      let connection = URLSessionWebSocketConnection(task: task, rules: delegate)
      task.delegate = connection.events
      return try await connection.open(offering: offered)
    }
  }
#endif
