import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension StubTransport {
  /// This stub with a route that accepts WebSocket upgrades at `path` and runs `server` as
  /// the server of each connection, in memory: test your WebSocket code without a network.
  ///
  /// ```swift
  /// let stub = StubTransport().onWebSocket("/rooms/42") { socket in
  ///   try await socket.send(.text("welcome"))
  ///   try await socket.echoUntilClosed()
  /// }
  /// let client = HTTPClient(baseURL: URL(string: "wss://chat.test")!, transport: stub)
  /// let socket = try await client.webSocket(ChatApi.room(42))
  /// ```
  ///
  /// `subprotocol` is the one the server picks when the client offers it.
  public func onWebSocket(
    _ path: String, subprotocol: String? = nil,
    _ server: @escaping @Sendable (StubWebSocket) async throws -> Void
  ) -> StubTransport {
    adding(Route(method: .get, path: path, answer: .webSocket(subprotocol: subprotocol, server)))
  }

  /// Records the upgrade request and, when a ``onWebSocket(_:subprotocol:_:)`` route
  /// matches, opens an in-memory connection to it; any other route's answer is
  /// `HTTPError.unacceptableStatus(_:)` (a 404 when none matches).
  public func openWebSocket(_ request: TransportRequest, options: TransportWebSocketOptions)
    async throws(HTTPError) -> TransportWebSocket
  {
    guard !Task.isCancelled else { throw .cancelled }
    _ = try WebSocketHandshake.httpURL(for: request.head.url)
    recorder.withLock { $0.append(request.head) }
    guard case .webSocket(let subprotocol, let server) = answer(for: request.head) else {
      var options = options.transport
      options.collectsBody = true
      let response = try await send(request, options: options)
      var head = response.head
      head.body = try await response.body.collect()
      throw .unacceptableStatus(head)
    }
    let offered = options.subprotocols
    let chosen = subprotocol.flatMap { offered.contains($0) ? $0 : nil }
    var headers: HTTPHeaders = ["Upgrade": "websocket", "Connection": "Upgrade"]
    if let chosen { headers["Sec-WebSocket-Protocol"] = chosen }
    let peer = StubWebSocket(maximumMessageSize: options.maximumMessageSize)
    Task {
      do {
        try await server(peer)
        let code = peer.closeFrame?.code ?? .normalClosure
        peer.end(serverClose: WebSocketClosure(code: code), failure: nil)
      } catch {
        peer.drop()
      }
    }
    return TransportWebSocket(
      response: HTTPResponse(status: 101, headers: headers, url: request.head.url),
      subprotocol: chosen, connection: StubWebSocket.Client(peer: peer))
  }
}
