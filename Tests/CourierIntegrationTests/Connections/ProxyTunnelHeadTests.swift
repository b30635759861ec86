#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// A proxy's answer to `CONNECT` over libcurl's limits for a head (300 KiB) is a proxy
  /// that broke HTTP's rules, as an origin's head over them is: `badServerResponse`, which no
  /// ``RetryPolicy`` takes for a lost connection. It read as `networkConnectionLost`, and a
  /// retrying client asked the proxy again and again.
  @Suite("A proxy's oversized answer to CONNECT", .timeLimit(.minutes(1)))
  struct ProxyTunnelHeadTests {
    /// A client of `base` through `proxy`, retrying as `RetryPolicy` does, trusting `relay`'s
    /// certificate.
    private func client(_ base: URL, proxy: ScriptedProxy, relay: TLSRelay) -> HTTPClient {
      var configuration = CurlTransport.Configuration()
      configuration.proxy = .http(host: "127.0.0.1", port: proxy.port)
      configuration.trust = ServerTrust(certificateAuthorities: [.file(relay.certificate)])
      var settings = HTTPClient.Configuration()
      settings.middleware = [RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1))]
      return HTTPClient(
        baseURL: base, configuration: settings,
        transport: CurlTransport(configuration: configuration))
    }

    /// An echo server behind a TLS relay, and a proxy to the relay whose `CONNECT` answer
    /// carries `padding` kilobytes of fields.
    private func route(padding: Int) async throws -> (LoopbackServer, TLSRelay, ScriptedProxy) {
      let server = try LoopbackServer { request, response in
        if request.headers["Upgrade"] != nil {
          try await response.upgradeToWebSocket().echoUntilClosed()
        } else {
          try await response.send(text: "through")
        }
      }
      let relay = try await TLSRelay.start(upstream: server.port)
      let proxy = try await ScriptedProxy.http(upstream: relay.port, padding: padding)
      return (server, relay, proxy)
    }

    @Test(
      "an https request or a WebSocket through it is badServerResponse, asked once",
      arguments: [false, true])
    func oversized(webSocket: Bool) async throws {
      let (server, relay, proxy) = try await route(padding: 400)
      defer {
        proxy.stop()
        relay.stop()
        server.stop()
      }
      let client = client(
        URL(string: webSocket ? "wss://127.0.0.1/" : "https://127.0.0.1/")!, proxy: proxy,
        relay: relay)
      let error = await #expect(throws: HTTPError.self) {
        if webSocket {
          _ = try await client.webSocket(
            Request<Data>(path: "w"), settings: .init(pingInterval: nil))
        } else {
          _ = try await client.send(Request<String>(path: "r"))
        }
      }
      #expect(error?.urlErrorCode == .badServerResponse, "\(String(describing: error))")
      #expect(proxy.lines.count == 1, "\(proxy.lines)")
    }

    @Test(
      "the good path beside it: a large answer within the limits opens the tunnel",
      arguments: [false, true])
    func withinLimits(webSocket: Bool) async throws {
      let (server, relay, proxy) = try await route(padding: 150)
      defer {
        proxy.stop()
        relay.stop()
        server.stop()
      }
      let client = client(
        URL(string: webSocket ? "wss://127.0.0.1/" : "https://127.0.0.1/")!, proxy: proxy,
        relay: relay)
      if webSocket {
        let socket = try await client.webSocket(
          Request<Data>(path: "w"), settings: .init(pingInterval: nil))
        try await socket.send("through")
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("through"))
        await socket.close()
      } else {
        #expect(try await client.send(Request<String>(path: "r")) == "through")
      }
      #expect(proxy.lines.count == 1, "\(proxy.lines)")
    }
  }
#endif
