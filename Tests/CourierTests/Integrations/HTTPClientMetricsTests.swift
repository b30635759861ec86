#if Metrics
  import Courier
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import Metrics
  import MetricsTestKit
  import Testing

  @Suite("HTTPClientMetrics records swift-metrics named as OpenTelemetry's")
  struct HTTPClientMetricsTests {
    /// A client whose events `metrics` records.
    func client(
      _ metrics: TestMetrics, stub: StubTransport,
      configure: (inout HTTPClient.Configuration) -> Void = { _ in }
    ) -> HTTPClient {
      let recorder = HTTPClientMetrics(factory: metrics)
      var configuration = HTTPClient.Configuration()
      configuration.observer = { event in recorder.record(event) }
      configure(&configuration)
      return makeClient(transport: stub, configuration: configuration)
    }

    /// The dimensions of every metric of a request to `api.example.com` over https.
    func server(_ method: String = "GET") -> [(String, String)] {
      [
        ("http.request.method", method), ("url.scheme", "https"),
        ("server.address", "api.example.com"), ("server.port", "443"),
      ]
    }

    @Test("an answered request: duration, count, body sizes, and in flight back to 0")
    func answered() async throws {
      let metrics = TestMetrics()
      let stub = StubTransport().fallback { _ throws(HTTPError) in StubResponse(text: "12345") }
      let endpoint = Request<String>(
        method: .post, path: "notes/42", query: ["q": "x"], body: .data(Data(count: 7)))
      _ = try await client(metrics, stub: stub).send(endpoint)
      let answered = server("POST") + [("http.response.status_code", "200")]
      let duration = try metrics.expectTimer("http.client.request.duration", answered)
      #expect(duration.values.count == 1)
      #expect(try metrics.expectCounter("http.client.requests", answered).values == [1])
      #expect(try metrics.expectRecorder("http.client.request.body.size", answered).values == [7])
      #expect(try metrics.expectRecorder("http.client.response.body.size", answered).values == [5])
      let active = try metrics.expectMeter("http.client.active_requests", server("POST"))
      #expect(active.values == [1, 0])
      #expect(metrics.counters.allSatisfy { $0.label != "http.client.request.failures" })
    }

    @Test("a request is counted in flight while it waits for its answer")
    func inFlight() async throws {
      let metrics = TestMetrics()
      let (arrived, release) = (Signal(), Gate())
      let stub = StubTransport().serving { _, response in
        arrived.fire()
        await release.wait()
        try await response.send(text: "ok")
      }
      let client = client(metrics, stub: stub)
      let first = Task { try await client.send(Request<String>(path: "a")) }
      await watched { await arrived.wait() }
      let active = try metrics.expectMeter("http.client.active_requests", server())
      #expect(active.lastValue == 1)
      release.open()
      _ = try await first.value
      #expect(active.lastValue == 0)
      // A request without a body sent 0 bytes of one.
      let answered = server() + [("http.response.status_code", "200")]
      #expect(try metrics.expectRecorder("http.client.request.body.size", answered).values == [0])
    }

    @Test(
      "failures are counted by HTTPError case, with the status when there was an answer",
      arguments: [
        (HTTPError.timedOut, "timedOut", nil),
        (.cancelled, "cancelled", nil),
        (.transport(URLError(.cannotConnectToHost)), "transport", nil),
        (.responseTooLarge(limit: 10), "responseTooLarge", nil),
        (.unacceptableStatus(HTTPResponse(status: 503)), "unacceptableStatus", "503"),
      ] as [(HTTPError, String, String?)])
    func failures(error: HTTPError, type: String, status: String?) async throws {
      let metrics = TestMetrics()
      let stub = StubTransport().fallback { _ throws(HTTPError) in
        guard let status = error.status else { throw error }
        return .status(status)
      }
      await #expect(throws: HTTPError.self) {
        try await client(metrics, stub: stub).send(Request<Data>(path: "x"))
      }
      let failed =
        server() + (status.map { [("http.response.status_code", $0)] } ?? [])
        + [("error.type", type)]
      #expect(try metrics.expectCounter("http.client.request.failures", failed).values == [1])
      #expect(try metrics.expectCounter("http.client.requests", failed).values == [1])
      #expect(try metrics.expectTimer("http.client.request.duration", failed).values.count == 1)
      #expect(try metrics.expectMeter("http.client.active_requests", server()).lastValue == 0)
    }

    @Test("a body that fails to decode is a decodingFailed failure with its status")
    func decodingFailed() async throws {
      let metrics = TestMetrics()
      let stub = StubTransport().fallback { _ throws(HTTPError) in .json("[1,") }
      await #expect(throws: HTTPError.self) {
        try await client(metrics, stub: stub).send(Request<[Int]>(path: "x"))
      }
      let failed =
        server() + [("http.response.status_code", "200"), ("error.type", "decodingFailed")]
      #expect(try metrics.expectCounter("http.client.request.failures", failed).values == [1])
    }

    @Test("a request that could not be built is counted with its method alone")
    func invalidRequest() async throws {
      let metrics = TestMetrics()
      await #expect(throws: HTTPError.self) {
        try await client(metrics, stub: StubTransport()).send(Request<Data>(path: "%zz"))
      }
      let failed = [("http.request.method", "GET"), ("error.type", "invalidRequest")]
      #expect(try metrics.expectCounter("http.client.request.failures", failed).values == [1])
      let active = try metrics.expectMeter("http.client.active_requests", [failed[0]])
      #expect(active.lastValue == 0)
    }

    @Test("the cache's answers are counted by status: a miss, then a hit")
    func cache() async throws {
      let metrics = TestMetrics()
      let stub = StubTransport().fallback { _ throws(HTTPError) in
        StubResponse(headers: ["Cache-Control": "max-age=600"], text: "stored")
      }
      let client = client(metrics, stub: stub) { $0.cache = HTTPCache() }
      for _ in 0..<3 { _ = try await client.send(Request<String>(path: "movie/1")) }
      let lookups = "http.client.cache.lookups"
      let miss = try metrics.expectCounter(lookups, server() + [("courier.cache.status", "miss")])
      let hit = try metrics.expectCounter(lookups, server() + [("courier.cache.status", "hit")])
      #expect(miss.values == [1] && hit.values == [1, 1])
      #expect(stub.requests.count == 1)
    }

    @Test("an unknown method is _OTHER, unless listed; a path or query is never a dimension")
    func cardinality() async throws {
      let metrics = TestMetrics()
      let stub = StubTransport().fallback { _ throws(HTTPError) in StubResponse(text: "ok") }
      let purge = Request<String>(
        method: "PURGE", path: "users/alice/secrets", query: ["api_key": "apikey-SECRET"])
      _ = try await client(metrics, stub: stub).send(purge)
      let other = server("_OTHER") + [("http.response.status_code", "200")]
      #expect(try metrics.expectCounter("http.client.requests", other).values == [1])
      let known = TestMetrics()
      let listed = HTTPClientMetrics(factory: known, knownMethods: ["GET", "PURGE"])
      var configuration = HTTPClient.Configuration()
      configuration.observer = { listed.record($0) }
      _ = try await makeClient(transport: stub, configuration: configuration).send(purge)
      let named = server("PURGE") + [("http.response.status_code", "200")]
      #expect(try known.expectCounter("http.client.requests", named).values == [1])
      let labels =
        metrics.counters.map(\.dimensions) + metrics.timers.map(\.dimensions)
        + metrics.recorders.map(\.dimensions) + metrics.meters.map(\.dimensions)
      for dimensions in labels {
        for (_, value) in dimensions {
          #expect(!value.contains("alice") && !value.contains("SECRET") && !value.contains("/"))
        }
      }
    }
  }
#endif
