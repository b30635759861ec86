#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// A transport's proxy credentials are the credential rule's: a proxy that forwards
  /// `Proxy-Authorization` to the origin (a misconfigured one does), and an origin that
  /// echoes its request's headers, must not put the proxy's Basic token or password in an
  /// error, a log line, an event or a cache file. (URLSessionTransport on Linux refuses a
  /// configured proxy, so these run over CurlTransport; ``EnvironmentProxySecretTests`` holds
  /// the environment's proxy over both.)
  @Suite("A proxy's credentials echoed by the origin", .timeLimit(.minutes(1)))
  struct ProxySecretEchoTests {
    private let password = "s3cret-proxy"
    private var token: String { Data("svc:\(password)".utf8).base64EncodedString() }

    /// An origin that answers `status` with every request header it got, one per line (but
    /// at `/plain`, with no header).
    private func echoing(status: Int, cache: Bool = false) throws -> LoopbackServer {
      try LoopbackServer { request, response in
        let lines = request.headers.fields.map { "\($0.name): \($0.value)" }
        try await response.send(
          status: status, headers: cache ? ["Cache-Control": "max-age=600"] : [:],
          text: request.path == "/plain" ? "nothing echoed" : lines.joined(separator: "\n"))
      }
    }

    /// A client of `name` through an HTTP proxy with credentials to `server`, logging
    /// bodies and publishing events into `printed`.
    private func client(
      _ server: LoopbackServer, proxy: ScriptedProxy, printed: Locked<[String]>,
      cache: HTTPCache? = nil
    ) -> HTTPClient {
      var transport = CurlTransport.Configuration()
      transport.proxy = .http(
        host: "127.0.0.1", port: proxy.port, username: "svc", password: password)
      var configuration = HTTPClient.Configuration()
      configuration.headers = ["X-Visible": "plain-value"]
      configuration.middleware = [
        LoggingMiddleware(level: .bodies) { line in printed.withLock { $0.append(line) } }
      ]
      configuration.observer = { event in printed.withLock { $0.append("\(event)") } }
      configuration.cache = cache
      return HTTPClient(
        baseURL: URL(string: "http://origin.courier-test.invalid:\(server.port)")!,
        configuration: configuration, transport: CurlTransport(configuration: transport))
    }

    @Test("an error body echoing Proxy-Authorization shows neither the token nor the password")
    func errorBody() async throws {
      let server = try echoing(status: 400)
      defer { server.stop() }
      let proxy = try await ScriptedProxy.http(upstream: server.port)
      defer { proxy.stop() }
      let printed = Locked<[String]>([])
      let client = client(server, proxy: proxy, printed: printed)
      let caught = await #expect(throws: HTTPError.self) {
        try await client.send(Request<String>(path: "echo"))
      }
      let error = try #require(caught)
      // The proxy did forward it: the origin's answer holds it.
      let body = String(decoding: error.response?.body ?? Data(), as: UTF8.self)
      #expect(body.contains(token))
      let texts = error.printedForms + printed.withLock { $0 }
      for text in texts {
        #expect(!text.contains(token) && !text.contains(password), "\(text)")
      }
      // Its good-path twin: a header that is no credential shows in the same excerpt.
      #expect("\(error)".contains("X-Visible: plain-value"), "\(error)")
      #expect(printed.withLock { $0.contains { $0.contains("X-Visible: plain-value") } })
    }

    @Test("a cacheable answer echoing Proxy-Authorization is kept in memory only, not on disk")
    func cacheFile() async throws {
      let server = try echoing(status: 200, cache: true)
      defer { server.stop() }
      let proxy = try await ScriptedProxy.http(upstream: server.port)
      defer { proxy.stop() }
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "courier-proxy-echo-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: directory) }
      let cache = try HTTPCache(directory: directory)
      let client = client(server, proxy: proxy, printed: Locked([]), cache: cache)
      let echoed = try await client.send(Request<String>(path: "echo"))
      #expect(echoed.contains(token))
      #expect(try await client.send(Request<String>(path: "echo")) == echoed)  // from memory
      #expect(cache.diskUsage == 0)
      // Its good-path twin: an answer without the token is written to disk.
      #expect(try await client.send(Request<String>(path: "plain")) == "nothing echoed")
      #expect(cache.diskUsage > 0)
    }
  }
#endif
