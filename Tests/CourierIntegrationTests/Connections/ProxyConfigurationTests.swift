#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  @Suite("Proxies a CurlTransport is given", .timeLimit(.minutes(1)))
  struct ProxyConfigurationTests {
    private func echo() throws -> LoopbackServer {
      try LoopbackServer { request, response in
        try await response.send(
          text: "\(request.method) \(request.path) \(request.headers["Host"] ?? "-")")
      }
    }

    /// A client of `base` through `proxy`, retrying as `RetryPolicy` does when `retrying`.
    private func client(_ base: URL, proxy: ProxyConfiguration, retrying: Bool = false)
      -> HTTPClient
    {
      var configuration = CurlTransport.Configuration()
      configuration.proxy = proxy
      var settings = HTTPClient.Configuration()
      if retrying {
        settings.middleware = [RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1))]
      }
      return HTTPClient(
        baseURL: base, configuration: settings,
        transport: CurlTransport(configuration: configuration))
    }

    @Test("an HTTP proxy gets the absolute URL and Basic credentials; an excluded host goes direct")
    func httpProxy() async throws {
      let server = try echo()
      defer { server.stop() }
      let proxy = try await ScriptedProxy.http(upstream: server.port)
      defer { proxy.stop() }
      let name = "origin.courier-test.invalid"
      let configured = ProxyConfiguration.http(
        host: "127.0.0.1", port: proxy.port, username: "svc", password: "s3cret-proxy",
        excluding: ["127.0.0.1"])
      let through = client(URL(string: "http://\(name):8080")!, proxy: configured)
      #expect(try await through.send(Request<String>(path: "a")) == "GET /a \(name):8080")
      let basic = "Basic " + Data("svc:s3cret-proxy".utf8).base64EncodedString()
      #expect(proxy.lines == ["GET http://\(name):8080/a HTTP/1.1 | \(basic)"])
      // The loopback server itself is excluded: reached without the proxy.
      let direct = client(server.baseURL, proxy: configured)
      #expect(try await direct.send(Request<String>(path: "b")).hasPrefix("GET /b"))
      #expect(proxy.lines.count == 1)
    }

    @Test(
      "an excluded host's subdomains go direct, however the exclusion is spelled",
      arguments: ["localhost", ".localhost", "*.localhost", " *.localhost "])
    func excludedSubdomains(spelling: String) async throws {
      let server = try echo()
      defer { server.stop() }
      let proxy = try await ScriptedProxy.http(upstream: server.port)
      defer { proxy.stop() }
      let configured = ProxyConfiguration.http(
        host: "127.0.0.1", port: proxy.port, excluding: ["example.com", spelling])
      // libcurl resolves every name under localhost to the loopback address itself.
      let direct = client(URL(string: "http://api.localhost:\(server.port)")!, proxy: configured)
      #expect(try await direct.send(Request<String>(path: "d")).hasPrefix("GET /d"))
      #expect(proxy.lines.isEmpty)
      let through = client(URL(string: "http://api.example.org:\(server.port)")!, proxy: configured)
      #expect(try await through.send(Request<String>(path: "e")).hasPrefix("GET /e"))
      #expect(proxy.lines.count == 1)
    }

    @Test("a SOCKS5 proxy gets the host name to resolve, and the user and password")
    func socks5() async throws {
      let server = try echo()
      defer { server.stop() }
      let proxy = try await ScriptedProxy.socks5(upstream: server.port)
      defer { proxy.stop() }
      let name = "origin.courier-test.invalid"
      let through = client(
        URL(string: "http://\(name):9090")!,
        proxy: .socks5(host: "127.0.0.1", port: proxy.port, username: "svc", password: "pw"))
      #expect(try await through.send(Request<String>(path: "c")) == "GET /c \(name):9090")
      #expect(proxy.lines == ["svc pw \(name):9090"])
    }

    @Test("a WebSocket goes through the configured HTTP proxy's CONNECT tunnel, with credentials")
    func webSocket() async throws {
      let server = try LoopbackServer { _, response in
        try await response.upgradeToWebSocket().echoUntilClosed()
      }
      defer { server.stop() }
      let proxy = try await ScriptedProxy.http(upstream: server.port)
      defer { proxy.stop() }
      let name = "chat.courier-test.invalid"
      let client = client(
        URL(string: "ws://\(name)/")!,
        proxy: .http(host: "127.0.0.1", port: proxy.port, username: "svc", password: "pw"))
      let socket = try await client.webSocket(
        Request<Data>(path: "room"), settings: .init(pingInterval: nil))
      try await socket.send("through the tunnel")
      var messages = socket.messages.makeAsyncIterator()
      #expect(try await messages.next() == .text("through the tunnel"))
      await socket.close()
      let basic = "Basic " + Data("svc:pw".utf8).base64EncodedString()
      #expect(proxy.lines == ["CONNECT \(name):80 HTTP/1.1 | \(basic)"])
    }

    @Test("as a hurried user: one client from many tasks through the proxy, one task cancelled")
    func manyTasks() async throws {
      let release = Signal()
      let server = try LoopbackServer { request, response in
        if request.path == "/slow" { await release.wait() }
        try await response.send(text: request.path)
      }
      defer { server.stop() }
      let proxy = try await ScriptedProxy.socks5(upstream: server.port)
      defer { proxy.stop() }
      let shared = client(
        URL(string: "http://origin.courier-test.invalid:9090")!,
        proxy: .socks5(host: "127.0.0.1", port: proxy.port, username: "svc", password: "pw"))
      let slow = Task { try await shared.send(Request<String>(path: "slow")) }
      let answers = try await withThrowingTaskGroup(of: String.self) { group in
        for index in 0..<20 {
          group.addTask { try await shared.send(Request<String>(path: "r\(index)")) }
        }
        return try await group.reduce(into: Set<String>()) { $0.insert($1) }
      }
      #expect(answers == Set((0..<20).map { "/r\($0)" }))
      slow.cancel()
      await #expect(throws: HTTPError.cancelled) { try await slow.value }
      release.fire()
      // The client still works after the cancellation.
      #expect(try await shared.send(Request<String>(path: "after")) == "/after")
    }

    /// A proxy that answers every `CONNECT` with `status` (and counts them).
    private func refusingProxy(_ status: Int, count: Locked<Int>) throws -> LoopbackServer {
      try LoopbackServer { request, response in
        count.withLock { $0 += 1 }
        try await response.send(
          status: status, headers: ["Proxy-Authenticate": "Basic realm=\"proxy\""], text: "no")
      }
    }

    @Test(
      "a proxy that refuses the tunnel says so, with its status, and is not retried for a 4xx",
      arguments: [
        (407, URLError.Code.userAuthenticationRequired, 1), (403, .resourceUnavailable, 1),
        (502, .cannotConnectToHost, 3),
      ])
    func tunnelRefused(status: Int, code: URLError.Code, attempts: Int) async throws {
      let count = Locked(0)
      let proxy = try refusingProxy(status, count: count)
      defer { proxy.stop() }
      let client = client(
        URL(string: "https://origin.courier-test.invalid")!,
        proxy: .http(
          host: "127.0.0.1", port: proxy.port, username: "svc", password: "s3cret-proxy"),
        retrying: true)
      let error = await #expect(throws: HTTPError.self) {
        try await client.send(Request<String>(path: "x"))
      }
      #expect(error?.urlErrorCode == code)
      let text = "\(String(describing: error))"
      #expect(text.contains("\(status)"), "\(text)")
      #expect(text.contains("proxy"), "\(text)")
      #expect(!text.contains("s3cret-proxy"))
      #expect(count.withLock { $0 } == attempts)
    }

    @Test("a WebSocket through a proxy that refuses the tunnel fails the same way")
    func webSocketTunnelRefused() async throws {
      let count = Locked(0)
      let proxy = try refusingProxy(407, count: count)
      defer { proxy.stop() }
      let client = client(
        URL(string: "wss://chat.courier-test.invalid/")!,
        proxy: .http(host: "127.0.0.1", port: proxy.port, username: "svc", password: "wrong"))
      let error = await #expect(throws: HTTPError.self) {
        try await client.webSocket(Request<Data>(path: "room"), settings: .init(pingInterval: nil))
      }
      #expect(error?.urlErrorCode == .userAuthenticationRequired)
      #expect(count.withLock { $0 } == 1)
    }

    @Test(
      "a SOCKS5 proxy's refusal says what it refused, and is retried only when it may pass",
      arguments: [
        ("s3cret-wrong", UInt8(0), URLError.Code.userAuthenticationRequired, 1),
        ("s3cret-right", 2, .resourceUnavailable, 1), ("s3cret-right", 4, .cannotConnectToHost, 3),
      ])
    func socksRefused(password: String, reply: UInt8, code: URLError.Code, attempts: Int)
      async throws
    {
      let server = try echo()
      defer { server.stop() }
      let proxy = try await ScriptedProxy.socks5(
        upstream: server.port, password: "s3cret-right", reply: reply)
      defer { proxy.stop() }
      let client = client(
        URL(string: "http://origin.courier-test.invalid:9090")!,
        proxy: .socks5(host: "127.0.0.1", port: proxy.port, username: "svc", password: password),
        retrying: true)
      let error = await #expect(throws: HTTPError.self) {
        try await client.send(Request<String>(path: "x"))
      }
      #expect(error?.urlErrorCode == code)
      let text = "\(String(describing: error))"
      #expect(text.contains("SOCKS"), "\(text)")
      #expect(!text.contains(password))
      // Each attempt either failed its login (no line) or asked for the origin (a line).
      let asked = proxy.lines.count
      #expect(asked == (reply == 0 ? 0 : attempts))
      if reply != 0 {
        #expect(proxy.lines.allSatisfy { $0.hasSuffix("origin.courier-test.invalid:9090") })
      }
    }

    @Test("a proxy that cannot be reached fails clearly, without its password in the error")
    func unreachable() async throws {
      let closed = try LoopbackServer.closedPort()
      let unreachable = client(
        URL(string: "http://127.0.0.2:1")!,
        proxy: .http(host: "127.0.0.1", port: closed, username: "svc", password: "s3cret-proxy"))
      let error = await #expect(throws: HTTPError.self) {
        try await unreachable.send(Request<String>(path: "x"))
      }
      #expect(error?.urlErrorCode == .cannotConnectToHost)
      #expect(!"\(String(describing: error))".contains("s3cret-proxy"))
    }

    @Test("a proxy host written as a URL, with user info or a port, is refused; nothing is sent")
    func malformedHost() async throws {
      let server = try echo()
      defer { server.stop() }
      let proxy = try await ScriptedProxy.http(upstream: server.port)
      defer { proxy.stop() }
      for host in [
        "svc:s3cret-proxy@127.0.0.1", "http://127.0.0.1:\(proxy.port)", "127.0.0.1:\(proxy.port)",
      ] {
        let refused = client(server.baseURL, proxy: .http(host: host, port: proxy.port))
        let error = await #expect(throws: HTTPError.self) {
          try await refused.send(Request<String>(path: "x"))
        }
        #expect(error?.invalidRequestReason?.contains("proxy's host") == true, "\(host)")
        #expect(!"\(String(describing: error))".contains("s3cret-proxy"))
      }
      #expect(proxy.lines.isEmpty)
      #expect(server.requestCount == 0)
    }

    @Test("the password is a credential: no description or dump of the proxy shows it")
    func redacted() {
      let proxy = ProxyConfiguration.socks5(
        host: "proxy.internal", port: 1080, username: "svc", password: "hunter2-proxy",
        excluding: ["localhost"])
      var dumped = ""
      dump(proxy, to: &dumped)
      for text in ["\(proxy)", String(reflecting: proxy), dumped] {
        #expect(!text.contains("hunter2-proxy"), "\(text)")
      }
      #expect(
        "\(proxy)"
          == "ProxyConfiguration(socks5 proxy.internal:1080 as svc (password <redacted>), not for localhost)"
      )
    }
  }
#endif
