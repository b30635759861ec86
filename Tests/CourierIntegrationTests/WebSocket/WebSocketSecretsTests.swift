import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// The credential rule on WebSocket handshakes, now that the protocol runs above the byte
/// channel: an upgrade carries the client's credentials, and neither a refusal that echoes
/// them nor the log, the events or the error text of an opened socket shows them.
@Suite("WebSocket handshakes keep credentials out of every text", .timeLimit(.minutes(1)))
struct WebSocketSecretsTests {
  static let secrets = [
    "bearer-SECRET-1", "bearer-SECRET-2", "apikey-SECRET", "cookie-SECRET", "tenant-SECRET",
    "user-SECRET", "pass-SECRET",
  ]

  @Test("a refusal echoing the upgrade's credentials, and an accepted upgrade, leak none")
  func echoedAndAccepted() async throws {
    let sentAuthorization = Locked<[String]>([])
    let server = try LoopbackServer { request, response in
      sentAuthorization.withLock { $0.append(request.headers["Authorization"] ?? "-") }
      if request.path.hasSuffix("/open") {
        let socket = try await response.upgradeToWebSocket()
        try await socket.send(.text("welcome"))
        try await socket.echoUntilClosed()
        return
      }
      let echoed = request.headers.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
      try await response.send(
        status: 401, headers: ["X-Echo": request.headers["Authorization"] ?? "-"],
        text: "refused \(request.target) \(echoed)")
    }
    defer { server.stop() }
    let printed = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.headers = ["Cookie": "id=cookie-SECRET", "X-Tenant": "tenant-SECRET"]
    configuration.redactedNames = ["X-Tenant"]
    configuration.middleware = [
      BearerAuthentication(provider: SecretProvider()),
      APIKeyAuthentication(key: "apikey-SECRET", in: .query("api_key")),
      LoggingMiddleware(level: .headers) { line in printed.withLock { $0.append(line) } },
    ]
    configuration.observer = { event in printed.withLock { $0.append("\(event)") } }
    let client = HTTPClient(
      baseURL: URL(string: "ws://user-SECRET:pass-SECRET@127.0.0.1:\(server.port)/chat")!,
      configuration: configuration, transport: WebSocketServer.transport)

    let error = await #expect(throws: HTTPError.self) {
      _ = try await client.webSocket(Request<Data>(path: "refused"))
    }
    #expect(error?.response?.status == 401)
    #if canImport(FoundationNetworking)
      // The refusal's body echoes them (URLSessionWebSocketTask keeps no body on Apple):
      // there was something to leak.
      #expect(error?.response?.text?.contains("bearer-SECRET-2") == true)
    #endif
    let socket = try await client.webSocket(
      Request<Data>(path: "open"), settings: .init(pingInterval: nil))
    var messages = socket.messages.makeAsyncIterator()
    #expect(try await messages.next() == .text("welcome"))
    await socket.close()

    // The credentials did go out: a token on each attempt (the refresh's after the 401).
    #expect(sentAuthorization.withLock { $0 }.contains("Bearer bearer-SECRET-2"))
    var texts = printed.withLock { $0 }
    if let error {
      texts += ["\(error)", error.localizedDescription, error.response.map { "\($0)" } ?? ""]
    }
    texts += ["\(socket.response)"]
    for text in texts {
      for secret in Self.secrets {
        #expect(!text.contains(secret), "\(secret) leaked in: \(text)")
      }
    }
  }
}
