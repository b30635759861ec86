import Courier
import Foundation

extension LoopbackResponse {
  /// Accepts the request's WebSocket upgrade (RFC 6455 §4.2.2): answers `101 Switching
  /// Protocols` with the `Sec-WebSocket-Accept` its key calls for, `subprotocol` as
  /// `Sec-WebSocket-Protocol` when given, and `headers` on top; then hands the connection
  /// over to the returned socket.
  ///
  /// ```swift
  /// let server = try LoopbackServer { request, response in
  ///   let socket = try await response.upgradeToWebSocket(subprotocol: "chat")
  ///   while let message = try await socket.receiveMessage() { try await socket.send(message) }
  /// }
  /// ```
  ///
  /// The connection stays open while the handler runs, and is closed when it returns.
  ///
  /// Throws a `LoopbackError`, and sends nothing, when the request is not a valid upgrade:
  /// not a `GET`, no `Upgrade: websocket` or `Connection: Upgrade`, no `Sec-WebSocket-Key` of
  /// 16 bytes in base64, or a `Sec-WebSocket-Version` other than 13 (the handler can still
  /// answer, e.g. with 400). Also throws when the response was already started, or the server
  /// answers in memory for a ``StubTransport``, which has no socket to hand over.
  public func upgradeToWebSocket(subprotocol: String? = nil, headers: HTTPHeaders = [:])
    async throws -> LoopbackWebSocket
  {
    let key = try Self.webSocketKey(method: requestMethod, headers: requestHeaders)
    guard let connection = connection as? LoopbackConnection else {
      throw LoopbackError("a WebSocket upgrade needs a LoopbackServer on a socket")
    }
    try markUpgraded()
    let webSocket: LoopbackWebSocket
    do {
      webSocket = try connection.upgrade()
    } catch {
      connection.abort()
      throw error
    }
    let bytes = Self.upgradeHead(key: key, subprotocol: subprotocol, headers: headers)
    try await Self.aside { try connection.send(bytes) }
    return webSocket
  }

  /// The `101 Switching Protocols` that accepts an upgrade whose `Sec-WebSocket-Key` is `key`,
  /// choosing `subprotocol`, with `headers` on top.
  static func upgradeHead(key: String, subprotocol: String?, headers: HTTPHeaders = [:]) -> Data {
    var fields: HTTPHeaders = [
      "Upgrade": "websocket", "Connection": "Upgrade",
      "Sec-WebSocket-Accept": WebSocketHandshake.accept(for: key),
    ]
    if let subprotocol { fields["Sec-WebSocket-Protocol"] = subprotocol }
    var head = "HTTP/1.1 101 \(Self.reasonPhrase(101))\r\n"
    for field in fields.merging(headers) { head += "\(field.name): \(field.value)\r\n" }
    return Data((head + "\r\n").utf8)
  }

  /// The `Sec-WebSocket-Key` of a valid upgrade request; throws for any other request.
  static func webSocketKey(method: String, headers: HTTPHeaders) throws -> String {
    func tokens(_ name: String) -> [String] {
      headers.values(for: name).flatMap(WireSyntax.tokens)
    }
    func refuse(_ reason: String) -> LoopbackError {
      LoopbackError("not a WebSocket upgrade: \(reason)")
    }
    guard method == "GET" else { throw refuse("the method is \(method), not GET") }
    guard tokens("Upgrade").contains("websocket") else {
      throw refuse("no `Upgrade: websocket`")
    }
    guard tokens("Connection").contains("upgrade") else {
      throw refuse("no `Connection: Upgrade`")
    }
    let version = headers["Sec-WebSocket-Version"]?.trimmingCharacters(in: .whitespaces)
    guard version == "13" else {
      throw refuse("Sec-WebSocket-Version is \(version ?? "missing"), not 13")
    }
    guard let key = headers["Sec-WebSocket-Key"]?.trimmingCharacters(in: .whitespaces) else {
      throw refuse("no Sec-WebSocket-Key")
    }
    guard Data(base64Encoded: key)?.count == 16 else {
      throw refuse("Sec-WebSocket-Key \(key) is not 16 bytes in base64")
    }
    return key
  }
}
