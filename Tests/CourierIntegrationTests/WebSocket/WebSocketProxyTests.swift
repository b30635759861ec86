#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// CurlTransport's WebSocket goes through the proxy the environment names, in a CONNECT
  /// tunnel, as its other requests do. The environment is the process's, so the connection
  /// is made by a child process (this test binary, running only ``WebSocketTunnelChild``
  /// with `http_proxy` set), as ``ProxyTests`` does.
  @Suite("WebSocket through an environment proxy", .timeLimit(.minutes(2)))
  struct WebSocketProxyTests {
    /// The host the child asks for: it does not resolve, so only the proxy can reach it.
    static let host = "chat.courier.invalid"

    @Test("ws through http_proxy: a CONNECT tunnel to the host, then the upgrade and frames")
    func tunnel() async throws {
      let binary = ProcessInfo.processInfo.arguments[0]
      try #require(FileManager.default.isExecutableFile(atPath: binary))
      let hosts = Locked<[String]>([])
      let server = try LoopbackServer { request, response in
        hosts.withLock { $0.append(request.headers["Host"] ?? "") }
        try await response.upgradeToWebSocket().echoUntilClosed()
      }
      defer { server.stop() }
      let proxy = try await ScriptedProxy.http(upstream: server.port)
      defer { proxy.stop() }
      let command =
        "env -u no_proxy -u NO_PROXY http_proxy=http://127.0.0.1:\(proxy.port)"
        + " COURIER_WS_PROXY_CHILD=1 '\(binary)' --testing-library swift-testing"
        + " --filter WebSocketTunnelChild 2>&1"
      let output = try await ProxyTests.run(command)
      #expect(output.contains("Test run with 1 test"), "the child ran no test:\n\(output)")
      #expect(!output.contains("✘"), "the child failed:\n\(output)")
      #expect(proxy.lines == ["CONNECT \(Self.host):80 HTTP/1.1 | -"])
      #expect(hosts.withLock { $0 } == [Self.host])
    }
  }

  /// The child's side of ``WebSocketProxyTests``: runs only in the child process it starts.
  @Suite(
    "WebSocket through an environment proxy (child process)",
    .enabled(if: ProcessInfo.processInfo.environment["COURIER_WS_PROXY_CHILD"] != nil))
  struct WebSocketTunnelChild {
    @Test("the connection is tunnelled by the proxy")
    func throughProxy() async throws {
      let client = HTTPClient(
        baseURL: URL(string: "ws://\(WebSocketProxyTests.host)/")!, transport: CurlTransport())
      let socket = try await client.webSocket(
        Request<Data>(path: "room"), settings: .init(pingInterval: nil))
      try await socket.send("through the tunnel")
      var messages = socket.messages.makeAsyncIterator()
      #expect(try await messages.next() == .text("through the tunnel"))
      await socket.close()
    }
  }
#endif
