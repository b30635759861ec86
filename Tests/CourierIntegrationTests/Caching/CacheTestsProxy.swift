#if canImport(FoundationNetworking)
  import Courier
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import Glibc
  import Testing

  /// The checkout of http-tests/cache-tests to run, when one is given.
  private let cacheTestsCheckout = ProcessInfo.processInfo.environment["COURIER_CACHE_TESTS"]

  /// Not a test of the suite's own: the harness behind the numbers in "Caching responses"
  /// (`.ci/cache-tests/run`). With `COURIER_CACHE_TESTS` set to a checkout of
  /// http-tests/cache-tests whose server answers at `COURIER_CACHE_TESTS_ORIGIN`
  /// (`http://127.0.0.1:8000`), a loopback proxy relays every request through one
  /// `HTTPClient` with an `HTTPCache`, the suite's command line runs against it, and its
  /// results (JSON) are written to `COURIER_CACHE_TESTS_RESULTS`.
  @Suite(
    "http-tests/cache-tests through a caching proxy", .serialized,
    .enabled(if: cacheTestsCheckout != nil), .timeLimit(.minutes(30)))
  struct CacheTestsProxy {
    static let environment = ProcessInfo.processInfo.environment

    @Test("the suite's command line runs against one HTTPClient with an HTTPCache")
    func run() async throws {
      let checkout = try #require(cacheTestsCheckout)
      let origin = try #require(
        URL(string: Self.environment["COURIER_CACHE_TESTS_ORIGIN"] ?? "http://127.0.0.1:8000"))
      var configuration = HTTPClient.Configuration(cache: HTTPCache(memoryCapacity: 64 << 20))
      configuration.redirects = .never
      configuration.acceptableStatusCodes = StatusCodes(100..<600)
      configuration.maximumResponseBytes = nil
      let client = HTTPClient(baseURL: origin, configuration: configuration)
      let proxy = try LoopbackServer { request, response in
        try await Self.relay(request, through: client, to: response)
      }
      defer { proxy.stop() }
      // The command line reads its options as npm would pass them; an empty id runs all.
      setenv("npm_config_base", "http://127.0.0.1:\(proxy.port)", 1)
      setenv("npm_config_id", "", 1)
      setenv("npm_package_config_id", "", 1)
      let child = try ChildProcess.spawn([
        "node", "--no-warnings", checkout + "/test-engine/cli.mjs",
      ])
      let output = await onOwnThread {
        defer { child.reap() }
        return ChildProcess.readAll(child.output)
      }
      let results = try JSONSerialization.jsonObject(with: output) as? [String: Any]
      #expect((results?.count ?? 0) > 300)
      let path = Self.environment["COURIER_CACHE_TESTS_RESULTS"] ?? "/tmp/cache-tests-results.json"
      try output.write(to: URL(fileURLWithPath: path))
    }

    /// Fields of one connection, which a proxy neither relays nor forwards (RFC 9110 §7.6.1),
    /// and those the client or the server sets for itself.
    static let unrelayed: Set<String> = [
      "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
      "host", "content-length",
    ]

    /// Sends `request` on through `client` and writes its answer (or a `502`) to `response`.
    static func relay(
      _ request: LoopbackRequest, through client: HTTPClient, to response: LoopbackResponse
    ) async throws {
      var query = Query()
      for item in request.queryItems { query.append(item.name, item.value) }
      let headers = HTTPHeaders(
        request.headers.filter { !unrelayed.contains($0.name.lowercased()) })
      let body: RequestBody? =
        request.body.isEmpty
        ? nil
        : .data(request.body, contentType: request.headers["Content-Type"] ?? "")
      let endpoint = Request<Data>(
        method: HTTPMethod(rawValue: request.method), path: request.path, query: query,
        headers: headers, body: body)
      do {
        let answer = try await client.response(for: endpoint)
        let relayed = HTTPHeaders(
          answer.response.headers.filter { !unrelayed.contains($0.name.lowercased()) })
        try await response.send(
          status: answer.response.status, headers: relayed, body: answer.value)
      } catch {
        try await response.send(status: 502, text: "\(error)")
      }
    }
  }
#endif
