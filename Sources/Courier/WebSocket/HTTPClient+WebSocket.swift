import Foundation

extension HTTPClient {
  // MARK: - WebSocket

  /// Opens a WebSocket connection to the endpoint (RFC 6455) and returns it once the server
  /// has accepted the upgrade.
  ///
  /// ```swift
  /// let socket = try await client.webSocket(ChatApi.room(42), subprotocols: ["chat.v2"])
  /// try await socket.send("hello")
  /// for try await message in socket.messages {
  ///   print(message.text ?? "\(message.data.count) bytes")
  /// }
  /// ```
  ///
  /// The upgrade request is built like any other: the client's base URL (`ws`, `wss`,
  /// `http` or `https`) with the endpoint's path and query, the client's and endpoint's
  /// headers, the cookie jar's cookies, the middleware (authentication, logging; a
  /// middleware sees the server's `101` as the response) and the observer's events. The
  /// endpoint's `Response` type is not used: messages are read from the ``WebSocket``.
  ///
  /// - Parameters:
  ///   - endpoint: Where to connect; a `GET` without a body.
  ///   - subprotocols: The subprotocols to offer (`Sec-WebSocket-Protocol`), most preferred
  ///     first; ``WebSocket/subprotocol`` says which the server chose.
  ///   - settings: The message size limit, keep-alive pings and close timeout.
  ///   - reconnection: Whether to open the connection again when it drops (by default,
  ///     never).
  /// - Throws: ``HTTPError/invalidRequest(reason:)`` for a URL that is not `ws`, `wss`,
  ///   `http` or `https`, or a transport that cannot open WebSockets (`URLSessionTransport`
  ///   on Linux, or wrapped in a transport of your own); ``HTTPError/unacceptableStatus(_:)`` with the body when the server answers
  ///   other than `101`; ``HTTPError/transport(_:)`` when the answer is not a valid
  ///   handshake; ``HTTPError/timedOut`` past the endpoint's or client's timeout.
  public nonisolated func webSocket<E: Endpoint>(
    _ endpoint: E, subprotocols: [String] = [], settings: WebSocket.Settings = .init(),
    reconnection: ReconnectionPolicy = .never
  ) async throws(HTTPError) -> WebSocket {
    try settings.check()
    try WebSocketHandshake.check(subprotocols: subprotocols)
    let connect: WebSocket.Connect = { () async throws(HTTPError) -> TransportWebSocket in
      try await self.upgrade(endpoint, subprotocols: subprotocols, settings: settings)
    }
    let first = try await connect()
    return WebSocket(
      first, settings: settings, reconnection: reconnection, clock: configuration.clock,
      connect: connect)
  }

  /// One upgrade through the pipeline: built, reported, through the middleware, to the
  /// transport's ``HTTPTransport/openWebSocket(_:options:)``.
  private nonisolated func upgrade<E: Endpoint>(
    _ endpoint: E, subprotocols: [String], settings: WebSocket.Settings
  ) async throws(HTTPError) -> TransportWebSocket {
    guard endpoint.method == .get, endpoint.body == nil else {
      throw .invalidRequest(
        reason: "a WebSocket upgrade is a GET without a body, not \(endpoint.method.rawValue)"
          + (endpoint.body == nil ? "" : " with a body"))
    }
    let exchange = Exchange(
      use: .collect, timeout: endpoint.timeout ?? configuration.timeout, idleTimeout: nil,
      maximumBytes: Exchange.errorBodyLimit, acceptable: [101])
    let opened = Locked<TransportWebSocket?>(nil)
    let terminal: Terminal = { outgoing throws(HTTPError) in
      var request = outgoing.request
      // The upgrade is written as bytes from these fields: a line break would be sent.
      try self.finishHead(&request.head, body: request.body, outgoing)
      self.configuration.cookies?.addCookies(to: &request.head)
      let credentials = outgoing.credentials(sending: request.head)
      var options = TransportWebSocketOptions(
        subprotocols: subprotocols, maximumMessageSize: settings.maximumMessageSize)
      options.closeTimeout = settings.closeTimeout
      // The client's own clock (a manual one in tests) times the handshake and the close.
      if !(self.configuration.clock is ContinuousClock) {
        options.timer = DeadlineTimer(clock: self.configuration.clock)
      }
      options.transport = exchange.options(
        timeout: outgoing.timeout, now: self.configuration.clock.now)
      var response: HTTPResponse
      do throws(HTTPError) {
        let socket = try await self.transport.openWebSocket(request, options: options)
        // A middleware that sends twice keeps the last connection.
        opened.withLock { previous in
          previous?.connection.cancel()
          previous = socket
        }
        response = socket.response
      } catch {
        // A refusal goes back up the middleware as a response (an authenticator may
        // refresh its token on a 401 and try again).
        guard case .unacceptableStatus(let refusal) = error else {
          throw credentials.applied(to: error)
        }
        response = refusal
      }
      if let jar = self.configuration.cookies, let url = request.url {
        jar.store(from: response.headers, for: url)
      }
      response.requestURL = request.url
      response.credentials = credentials
      return response
    }
    do throws(HTTPError) {
      return try await perform(endpoint, exchange, terminal: terminal) {
        response throws(HTTPError) in
        guard response.status == 101, let socket = opened.withLock({ $0 }) else {
          throw .unacceptableStatus(response)
        }
        return socket
      }
    } catch {
      // Whatever failed after the upgrade (a middleware that throws, a status it changed),
      // the connection opened for it does not outlive it.
      opened.withLock { $0 }?.connection.cancel()
      throw error
    }
  }
}
