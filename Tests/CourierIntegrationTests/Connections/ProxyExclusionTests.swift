#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// What a hurried user writes into a proxy's settings: an IPv6 address in brackets among the
  /// excluded hosts, a port on an excluded host, a SOCKS5 login longer than RFC 1929 allows.
  /// libcurl ignored the first two (the request went through the proxy the user meant to
  /// avoid) and failed the third after connecting, as a proxy failure `RetryPolicy` retried.
  @Suite("Proxy settings a user gets wrong", .timeLimit(.minutes(1)))
  struct ProxyExclusionTests {
    private func client(_ base: URL, proxy: ProxyConfiguration) -> HTTPClient {
      var configuration = CurlTransport.Configuration()
      configuration.proxy = proxy
      var settings = HTTPClient.Configuration()
      settings.middleware = [RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1))]
      return HTTPClient(
        baseURL: base, configuration: settings,
        transport: CurlTransport(configuration: configuration))
    }

    @Test(
      "an excluded IPv6 address goes direct, in brackets or not",
      .enabled("needs an IPv6 loopback") {
        IPv6HostEcho().map { server in
          server.stop()
          return true
        } ?? false
      },
      arguments: ["[::1]", "::1", " [::1] "])
    func bracketedAddress(entry: String) async throws {
      let server = try #require(IPv6HostEcho())
      defer { server.stop() }
      // Through the proxy, another server answers.
      let other = try LoopbackServer { _, response in try await response.send(text: "proxied") }
      defer { other.stop() }
      let proxy = try await ScriptedProxy.http(upstream: other.port)
      defer { proxy.stop() }
      let direct = client(
        URL(string: "http://[::1]:\(server.port)/")!,
        proxy: .http(host: "127.0.0.1", port: proxy.port, excluding: [entry]))
      #expect(try await direct.send(Request<String>(path: "a")) == "[::1]:\(server.port)")
      #expect(proxy.lines.isEmpty, "\(proxy.lines)")
    }

    @Test(
      "an excluded host with a port is refused, naming it; nothing is sent",
      arguments: ["127.0.0.1:8080", "localhost:1", "[::1]:8080"])
    func excludedPort(entry: String) async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      let proxy = try await ScriptedProxy.http(upstream: server.port)
      defer { proxy.stop() }
      let refused = client(
        server.baseURL, proxy: .http(host: "127.0.0.1", port: proxy.port, excluding: [entry]))
      let error = await #expect(throws: HTTPError.self) {
        try await refused.send(Request<String>(path: "x"))
      }
      let reason = error?.invalidRequestReason ?? ""
      #expect(reason.contains(entry) && reason.contains("port"), "\(String(describing: error))")
      #expect(proxy.lines.isEmpty)
      #expect(server.requestCount == 0)
      // The good path beside it: the host alone is excluded, and reached directly.
      let direct = client(
        server.baseURL, proxy: .http(host: "127.0.0.1", port: proxy.port, excluding: ["127.0.0.1"]))
      #expect(try await direct.send(Request<String>(path: "y")) == "ok")
      #expect(proxy.lines.isEmpty)
    }

    @Test(
      "a SOCKS5 user name or password over 255 bytes is refused; nothing is sent",
      arguments: [(256, 3), (3, 256), (128, 128)])
    func longLogin(user: Int, password: Int) async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      let proxy = try await ScriptedProxy.socks5(upstream: server.port)
      defer { proxy.stop() }
      // Two bytes a character: 128 of them are 256 bytes.
      let client = client(
        URL(string: "http://origin.courier-test.invalid:9090")!,
        proxy: .socks5(
          host: "127.0.0.1", port: proxy.port, username: String(repeating: "u", count: user),
          password: String(repeating: "é", count: password)))
      let error = await #expect(throws: HTTPError.self) {
        try await client.send(Request<String>(path: "x"))
      }
      #expect(
        error?.invalidRequestReason?.contains("255 bytes") == true, "\(String(describing: error))")
      #expect(!"\(String(describing: error))".contains("éé"))
      #expect(proxy.lines.isEmpty)
      #expect(server.requestCount == 0)
    }

    @Test("the good path beside it: a user name and password of 255 bytes each log in")
    func longestLogin() async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      let proxy = try await ScriptedProxy.socks5(upstream: server.port)
      defer { proxy.stop() }
      let user = String(repeating: "u", count: 255)
      let password = String(repeating: "é", count: 127) + "p"
      let client = client(
        URL(string: "http://origin.courier-test.invalid:9090")!,
        proxy: .socks5(host: "127.0.0.1", port: proxy.port, username: user, password: password))
      #expect(try await client.send(Request<String>(path: "x")) == "ok")
      #expect(proxy.lines == ["\(user) \(password) origin.courier-test.invalid:9090"])
    }

    /// libcurl URL-decodes the user name and password it is given: `%2F` went as `/`, and the
    /// proxy refused a password it was never sent.
    @Test("a password with @ : % / reaches the proxy whole: a request, a tunnel, SOCKS5")
    func specialPassword() async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      let proxy = try await ScriptedProxy.http(upstream: server.port)
      defer { proxy.stop() }
      let password = "p@ss:w%2Frd/#?-s3cret"
      let configured = ProxyConfiguration.http(
        host: "127.0.0.1", port: proxy.port, username: "svc", password: password)
      let plain = client(URL(string: "http://origin.courier-test.invalid:8080")!, proxy: configured)
      #expect(try await plain.send(Request<String>(path: "a")) == "ok")
      // A WebSocket opens a tunnel (CONNECT) to its host.
      let tunnel = try LoopbackServer { _, response in
        try await response.upgradeToWebSocket().echoUntilClosed()
      }
      defer { tunnel.stop() }
      let tunnelProxy = try await ScriptedProxy.http(upstream: tunnel.port)
      defer { tunnelProxy.stop() }
      let socket = try await client(
        URL(string: "ws://chat.courier-test.invalid/")!,
        proxy: .http(host: "127.0.0.1", port: tunnelProxy.port, username: "svc", password: password)
      ).webSocket(Request<Data>(path: "room"), settings: .init(pingInterval: nil))
      await socket.close()
      let basic = "Basic " + Data("svc:\(password)".utf8).base64EncodedString()
      #expect(proxy.lines == ["GET http://origin.courier-test.invalid:8080/a HTTP/1.1 | \(basic)"])
      #expect(tunnelProxy.lines == ["CONNECT chat.courier-test.invalid:80 HTTP/1.1 | \(basic)"])
      // And a SOCKS5 proxy gets them as they are, the user name's % too.
      let socks = try await ScriptedProxy.socks5(upstream: server.port)
      defer { socks.stop() }
      let viaSocks = client(
        URL(string: "http://origin.courier-test.invalid:9090")!,
        proxy: .socks5(host: "127.0.0.1", port: socks.port, username: "svc%41", password: password))
      #expect(try await viaSocks.send(Request<String>(path: "b")) == "ok")
      #expect(socks.lines == ["svc%41 \(password) origin.courier-test.invalid:9090"])
      // Refused by a proxy that cannot be reached, the error shows none of it.
      let closed = try LoopbackServer.closedPort()
      let error = await #expect(throws: HTTPError.self) {
        try await client(
          URL(string: "https://origin.courier-test.invalid")!,
          proxy: .http(host: "127.0.0.1", port: closed, username: "svc", password: password)
        ).send(Request<String>(path: "x"))
      }
      var dumped = ""
      dump(error, to: &dumped)
      #expect(!"\(String(describing: error)) \(dumped)".contains("s3cret"))
    }
  }
#endif
