#if Logging || Metrics || Tracing
  import Courier
  import CourierTesting
  import Foundation
  import Testing

  #if Logging
    import InMemoryLogging
    import Logging
  #endif
  #if Metrics
    import Metrics
    import MetricsTestKit
  #endif
  #if Tracing
    import InMemoryTracing
    import Tracing
  #endif

  /// The snippets of the article "Observability", over the loopback server: each part with its
  /// trait.
  @Suite("Documentation: observability", .timeLimit(.minutes(1)))
  struct ArticleObservabilityTests {
    #if Logging
      @Test("LoggingMiddleware(logger:) as the article shows it, and its metadata")
      func logging() async throws {
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        // The snippet, with the logger writing to memory:
        let logger = Logger(label: "movies.api") { _ in handler }
        var configuration = HTTPClient.Configuration()
        configuration.middleware = [RetryPolicy(), LoggingMiddleware(logger: logger)]
        configuration.middleware.insert(
          APIKeyAuthentication(key: "k-SECRET", in: .query("api_key")), at: 0)
        let loopback = try Loopback(configuration: configuration) { _, response in
          try await response.send(json: #"{"page":1}"#)
        }
        defer { loopback.stop() }
        _ = try await loopback.client.send(Request<Data>(path: "movie/popular", query: ["page": 1]))
        let url = "\(loopback.server.baseURL)/3/movie/popular?page=1&api_key=<redacted>"
        let entries = handler.entries
        try #require(entries.count == 2)
        #expect(entries[0].level == .debug)
        #expect(entries[0].message.description == "→ GET \(url) (attempt 1)")
        #expect(
          entries[0].metadata == [
            "courier.request.id": "1", "http.request.method": "GET", "courier.attempt": "1",
            "url.full": "\(url)",
          ])
        #expect(entries[1].level == .info)
        #expect(entries[1].message.description.hasPrefix("← 200 GET \(url) "))
        #expect(entries[1].metadata["http.response.status_code"] == "200")
        #expect(entries[1].metadata["courier.duration_ms"] != nil)
      }
    #endif

    #if Metrics
      @Test("HTTPClientMetrics() as the article shows it, with MetricsSystem's factory")
      func metrics() async throws {
        let factory = TestMetrics()
        let configuration = withMetricsFactory(factory) {
          // The snippet: its recorder takes the factory bound to this task.
          let metrics = HTTPClientMetrics()
          var configuration = HTTPClient.Configuration()
          configuration.observer = { event in metrics.record(event) }
          return configuration
        }
        let loopback = try Loopback(configuration: configuration) { _, response in
          try await response.send(text: "ok")
        }
        defer { loopback.stop() }
        _ = try await loopback.client.send(Request<String>(path: "movie/popular"))
        let labels = Set(factory.counters.map(\.label) + factory.timers.map(\.label))
        #expect(labels == ["http.client.requests", "http.client.request.duration"])
      }
    #endif

    #if Tracing
      @Test("Configuration.tracer as the article shows it: a GET span under the caller's")
      func tracing() async throws {
        let tracer = W3CTestTracer()
        let loopback = try Loopback { request, response in
          try await response.send(
            json: #"{"traceparent":"\#(request.headers["traceparent"] ?? "")"}"#)
        }
        defer { loopback.stop() }
        // The snippet, with the in-memory tracer for the bootstrapped one:
        var configuration = HTTPClient.Configuration()
        configuration.tracer = tracer
        configuration.middleware = [RetryPolicy()]
        let baseURL = loopback.server.baseURL.appendingPathComponent("3")
        let client = HTTPClient(baseURL: baseURL, configuration: configuration)
        let page = try await tracer.withSpan("refresh popular") { _ in
          try await client.send(Request<Data>(path: "movie/popular", query: ["page": 1]))
        }
        let parent = try #require(
          tracer.finishedSpans.first { $0.operationName == "refresh popular" })
        let spans = tracer.clientSpans
        try #require(spans.count == 1)
        #expect(spans[0].operationName == "GET" && spans[0].parentSpanID == parent.spanID)
        let url = "\(loopback.server.baseURL)/3/movie/popular?page=1"
        #expect(spans[0]["url.full"] == "\(url)")
        #expect(spans[0]["http.response.status_code"] == 200)
        #expect(String(decoding: page, as: UTF8.self).contains(spans[0].traceparent))
      }
    #endif
  }
#endif
