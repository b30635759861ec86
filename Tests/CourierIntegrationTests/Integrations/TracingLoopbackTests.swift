#if Tracing
  import Courier
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import InMemoryTracing
  import Testing
  import Tracing

  /// Client spans over sockets, recorded by an in-memory tracer that writes W3C trace context.
  @Suite("Configuration.tracer over sockets", .timeLimit(.minutes(1)))
  struct TracingLoopbackTests {
    /// A configuration tracing with `tracer`, whose observer yields to `events`.
    private func configuration(
      _ tracer: W3CTestTracer, events: (@Sendable (HTTPEvent) -> Void)? = nil
    ) -> HTTPClient.Configuration {
      var configuration = HTTPClient.Configuration()
      configuration.tracer = tracer
      configuration.observer = events
      return configuration
    }

    @Test("a request: a client span named GET, a child of the caller's, its context sent")
    func request() async throws {
      let tracer = W3CTestTracer()
      var configuration = configuration(tracer)
      configuration.middleware = [APIKeyAuthentication(key: "k-SECRET", in: .query("api_key"))]
      let seen = Locked<[String?]>([])
      let loopback = try Loopback(configuration: configuration) { request, response in
        seen.withLock { $0 = [request.headers["traceparent"], request.headers["tracestate"]] }
        try await response.send(text: "ok")
      }
      defer { loopback.stop() }
      let client = loopback.client
      try await tracer.withSpan("caller") { _ in
        _ = try await client.send(Request<String>(path: "movie/popular", query: ["page": 1]))
      }
      let caller = try #require(tracer.finishedSpans.first { $0.operationName == "caller" })
      let spans = tracer.clientSpans
      try #require(spans.count == 1)
      let span = spans[0]
      #expect(span.operationName == "GET")
      #expect(span.traceID == caller.traceID && span.parentSpanID == caller.spanID)
      let url = "\(loopback.server.baseURL)/3/movie/popular?page=1&api_key=<redacted>"
      let port = try #require(loopback.server.baseURL.port)
      #expect(
        span.attributes
          == SpanAttributes([
            "http.request.method": "GET", "url.full": "\(url)", "server.address": "127.0.0.1",
            "server.port": .int64(Int64(port)), "http.response.status_code": 200,
          ]))
      #expect(span.status == nil && span.errors.isEmpty)
      #expect(seen.withLock { $0 } == [span.traceparent, "courier=tests"])
    }

    @Test("credentials: user-info and a query's API key are neither in url.full nor the error")
    func credentials() async throws {
      let tracer = W3CTestTracer()
      var configuration = configuration(tracer)
      configuration.middleware = [APIKeyAuthentication(key: "k-SECRET", in: .query("api_key"))]
      let loopback = try Loopback(configuration: configuration) { _, response in
        response.closeConnection()
      }
      defer { loopback.stop() }
      var components = try #require(
        URLComponents(url: loopback.server.baseURL, resolvingAgainstBaseURL: false))
      components.user = "user"
      components.password = "pw-SECRET"
      let client = HTTPClient(baseURL: try #require(components.url), configuration: configuration)
      await #expect(throws: HTTPError.self) {
        try await client.send(Request<String>(path: "me", query: ["page": 2]))
      }
      let spans = tracer.clientSpans
      try #require(spans.count == 1 && spans[0].errors.count == 1)
      let url = "http://<redacted>@127.0.0.1:\(loopback.server.port)/me?page=2&api_key=<redacted>"
      #expect(spans[0]["url.full"] == "\(url)")
      #expect(spans[0]["error.type"] == "transport")
      // The error as recorded, with what an exporter may print of it: its URL too.
      let error = try #require(spans[0].errors[0].error as? HTTPError)
      guard case .transport(let urlError) = error else {
        Issue.record("\(error)")
        return
      }
      let text = "\(error) \(urlError.userInfo) \(urlError.failingURL?.absoluteString ?? "")"
      #expect(text.contains("api_key=<redacted>") && !text.contains("SECRET"), "\(text)")
    }

    @Test("a retry: a span for each attempt, the first an error with its status as error.type")
    func retry() async throws {
      let tracer = W3CTestTracer()
      var configuration = configuration(tracer)
      configuration.middleware = [RetryPolicy(maximumAttempts: 2, clock: RecordingClock())]
      let seen = Locked<[String]>([])
      let loopback = try Loopback(configuration: configuration) { request, response in
        let count = seen.withLock { seen in
          seen.append(request.headers["traceparent"] ?? "none")
          return seen.count
        }
        try await response.send(status: count == 1 ? 503 : 200, text: "try again")
      }
      defer { loopback.stop() }
      #expect(try await loopback.client.send(Request<String>(path: "flaky")) == "try again")
      let spans = tracer.clientSpans
      try #require(spans.count == 2)
      #expect(spans[0]["http.response.status_code"] == 503)
      #expect(spans[0]["error.type"] == "503")
      #expect(spans[0].status?.code == .error)
      #expect(spans[0]["http.request.resend_count"] == nil)
      #expect(spans[1]["http.response.status_code"] == 200)
      #expect(spans[1]["http.request.resend_count"] == 1)
      #expect(spans[1]["error.type"] == nil && spans[1].status == nil)
      #expect(spans[0].parentSpanID == nil && spans[1].parentSpanID == nil)
      #expect(seen.withLock { $0 } == spans.map(\.traceparent))
    }

    @Test("a redirect: a span for each hop, named after its method, with its own URL")
    func redirect() async throws {
      let tracer = W3CTestTracer()
      let seen = Locked<[String]>([])
      let loopback = try Loopback(configuration: configuration(tracer)) { request, response in
        seen.withLock { $0.append(request.headers["traceparent"] ?? "none") }
        if request.path == "/3/old" {
          try await response.send(status: 303, headers: ["Location": "/3/new"], text: "see")
        } else {
          try await response.send(text: "\(request.method) new")
        }
      }
      defer { loopback.stop() }
      let endpoint = Request<String>(
        method: .post, path: "old", body: .data(Data("x".utf8), contentType: "text/plain"))
      #expect(try await loopback.client.send(endpoint) == "GET new")
      let spans = tracer.clientSpans
      try #require(spans.count == 2)
      let base = "\(loopback.server.baseURL)/3"
      #expect(spans.map(\.operationName) == ["POST", "GET"])
      #expect(spans[0]["url.full"] == "\(base)/old" && spans[1]["url.full"] == "\(base)/new")
      #expect(spans[0]["http.response.status_code"] == 303 && spans[0].status == nil)
      #expect(spans[0]["http.request.resend_count"] == nil)
      #expect(spans[1]["http.request.resend_count"] == 1)
      #expect(spans[1]["http.response.status_code"] == 200)
      #expect(seen.withLock { $0 } == spans.map(\.traceparent))
    }

    @Test("a redirect to another origin echoing the token in its URL: no hop's url.full shows it")
    func redirectEchoingToken() async throws {
      let tracer = W3CTestTracer()
      let other = try LoopbackServer { request, response in
        try await response.send(text: request.headers["Authorization"] ?? "none")
      }
      defer { other.stop() }
      var configuration = configuration(tracer)
      configuration.headers = ["Authorization": "Bearer tok-SECRET-77"]
      let loopback = try Loopback(configuration: configuration) { request, response in
        let token = request.headers["Authorization"]?.split(separator: " ").last ?? "-"
        try await response.send(
          status: 302, headers: ["Location": "\(other.baseURL)/landing/\(token)?next=home"])
      }
      defer { loopback.stop() }
      // The credential header stays home; the server put its value in the URL itself.
      #expect(try await loopback.client.send(Request<String>(path: "login")) == "none")
      let spans = tracer.clientSpans
      try #require(spans.count == 2)
      let url = "\(other.baseURL)/landing/<redacted>?next=home"
      #expect(spans[1]["url.full"] == "\(url)")
      #expect(spans[0]["url.full"] == "\(loopback.server.baseURL)/3/login")
    }

    @Test("a redirect with a cookie jar: the request's own cookie follows it, as untraced")
    func redirectWithJar() async throws {
      let tracer = W3CTestTracer()
      var configuration = configuration(tracer)
      configuration.cookies = CookieJar()
      let loopback = try Loopback(configuration: configuration) { request, response in
        guard request.path == "/3/new" else {
          return try await response.send(
            status: 302, headers: ["Location": "/3/new", "Set-Cookie": "jar=1"])
        }
        try await response.send(text: request.headers["Cookie"] ?? "-")
      }
      defer { loopback.stop() }
      let endpoint = Request<String>(path: "old", headers: ["Cookie": "own=2"])
      #expect(try await loopback.client.send(endpoint) == "own=2; jar=1")
      #expect(tracer.clientSpans.count == 2)
    }

    @Test("redirects and retries together: every request sent counted in resend_count")
    func redirectsRetried() async throws {
      let tracer = W3CTestTracer()
      var configuration = configuration(tracer)
      configuration.middleware = [RetryPolicy(maximumAttempts: 2, clock: RecordingClock())]
      let answers = Locked(0)
      let loopback = try Loopback(configuration: configuration) { request, response in
        if request.path == "/3/old" {
          try await response.send(status: 302, headers: ["Location": "/3/new"], text: "moved")
        } else {
          let count = answers.withLock { count in
            count += 1
            return count
          }
          try await response.send(status: count == 1 ? 503 : 200, text: "new")
        }
      }
      defer { loopback.stop() }
      #expect(try await loopback.client.send(Request<String>(path: "old")) == "new")
      let spans = tracer.clientSpans
      try #require(spans.count == 4)
      #expect(spans.map { $0["http.response.status_code"] } == [302, 503, 302, 200])
      #expect(spans.map { $0["http.request.resend_count"] } == [nil, 1, 2, 3])
    }

    @Test("a redirect under a per-host limit: each hop a span, each counted where it goes")
    func perHostAcrossRedirects() async throws {
      let tracer = W3CTestTracer()
      try await LimitTests().perHostAcrossRedirects(configuration(tracer))
      #expect(tracer.clientSpans.count == 4)
    }

    @Test("a 404: the span is an error, its error.type the status, and no exception recorded")
    func notFound() async throws {
      let tracer = W3CTestTracer()
      let loopback = try Loopback(configuration: configuration(tracer)) { _, response in
        try await response.send(status: 404, text: "no such movie")
      }
      defer { loopback.stop() }
      await #expect(throws: HTTPError.self) {
        try await loopback.client.send(Request<String>(path: "movie/0"))
      }
      let spans = tracer.clientSpans
      try #require(spans.count == 1)
      #expect(spans[0]["http.response.status_code"] == 404 && spans[0]["error.type"] == "404")
      #expect(spans[0].status?.code == .error && spans[0].errors.isEmpty)
    }

    @Test("a method OpenTelemetry does not know: named HTTP, _OTHER, its own name kept apart")
    func otherMethod() async throws {
      let tracer = W3CTestTracer()
      let loopback = try Loopback(configuration: configuration(tracer)) { request, response in
        try await response.send(text: request.method)
      }
      defer { loopback.stop() }
      #expect(
        try await loopback.client.send(Request<String>(method: "PURGE", path: "x")) == "PURGE")
      let spans = tracer.clientSpans
      try #require(spans.count == 1)
      #expect(spans[0].operationName == "HTTP")
      #expect(spans[0]["http.request.method"] == "_OTHER")
      #expect(spans[0]["http.request.method_original"] == "PURGE")
    }

    @Test("a failure: no server, error.type transport, the error recorded, no status code")
    func failure() async throws {
      let tracer = W3CTestTracer()
      let loopback = try Loopback(configuration: configuration(tracer)) { _, response in
        try await response.send(text: "never")
      }
      loopback.stop()
      await #expect(throws: HTTPError.self) {
        try await loopback.client.send(Request<String>(path: "gone"))
      }
      let spans = tracer.clientSpans
      try #require(spans.count == 1)
      #expect(spans[0]["error.type"] == "transport")
      #expect(spans[0].status?.code == .error)
      #expect(spans[0].errors.count == 1 && spans[0]["http.response.status_code"] == nil)
    }

    @Test("a hurried user: a task cancelled while the server holds the answer ends its span")
    func cancelled() async throws {
      let tracer = W3CTestTracer()
      let started = Signal()
      let loopback = try Loopback(configuration: configuration(tracer)) { _, response in
        started.fire()
        await response.clientDisconnected()
      }
      defer { loopback.stop() }
      let client = loopback.client
      let task = Task { try await client.send(Request<Data>(path: "slow")) }
      await started.wait()
      task.cancel()
      await expectCancelled(task)
      #expect(tracer.memory.activeSpans.isEmpty)
      let spans = tracer.clientSpans
      try #require(spans.count == 1)
      #expect(spans[0]["error.type"] == "cancelled" && spans[0].status?.code == .error)
    }

    @Test("a hurried user: a stream's reader that leaves after one chunk ends its span")
    func streamLeft() async throws {
      let tracer = W3CTestTracer()
      let (events, observer) = HTTPEvent.makeStream()
      let loopback = try Loopback(configuration: configuration(tracer, events: observer)) {
        _, response in
        try await response.writeHead()
        try await response.write(Data("first".utf8))
        await response.clientDisconnected()
      }
      defer { loopback.stop() }
      do {
        // A client made for one call, dropped with the stream it made.
        let client = HTTPClient(
          baseURL: loopback.server.baseURL, configuration: configuration(tracer, events: observer))
        for try await chunk in try await client.bytes(Request<Data>(path: "endless")) {
          #expect(chunk == Data("first".utf8))
          break
        }
      }
      // The request's last event is published after its span has ended.
      for await event in events {
        if case .failed = event { break }
        if case .finished = event { break }
      }
      #expect(tracer.memory.activeSpans.isEmpty)
      let spans = tracer.clientSpans
      try #require(spans.count == 1)
      #expect(spans[0]["http.response.status_code"] == 200)
      #expect(spans[0]["error.type"] == "cancelled")
    }

    @Test(
      "a streamed 4xx the server cuts mid-body: error.type transport (a lost connection), not cancelled",
      arguments: [nil, 1_000_000])
    func streamedErrorCut(length: Int?) async throws {
      let tracer = W3CTestTracer()
      let (events, observer) = HTTPEvent.makeStream()
      let loopback = try Loopback(configuration: configuration(tracer, events: observer)) {
        _, response in
        try await response.writeHead(status: 404, contentLength: length)
        try await response.write(Data(count: 200_000))
        response.closeConnection()
      }
      defer { loopback.stop() }
      let request = Request<Data>(path: "cut", acceptableStatusCodes: [200, 404])
      let error = await #expect(throws: HTTPError.self) {
        for try await _ in try await loopback.client.bytes(request) {}
      }
      #expect(error?.urlErrorCode == .networkConnectionLost, "\(String(describing: error))")
      for await event in events {
        guard case .failed(_, let failure, _) = event else { continue }
        #expect(failure.urlErrorCode == .networkConnectionLost)
        break
      }
      let spans = tracer.clientSpans
      try #require(spans.count == 1)
      #expect(spans[0]["http.response.status_code"] == 404)
      #expect(spans[0]["error.type"] == "transport" && spans[0].errors.count == 1)
    }

    @Test("a WebSocket's handshake has no span, and carries no trace context")
    func webSocket() async throws {
      let tracer = W3CTestTracer()
      let seen = Locked<String?>("unseen")
      let loopback = try Loopback(
        configuration: configuration(tracer), transport: WebSocketServer.transport
      ) { request, response in
        seen.withLock { $0 = request.headers["traceparent"] }
        try await response.upgradeToWebSocket().echoUntilClosed()
      }
      defer { loopback.stop() }
      let socket = try await loopback.client.webSocket(
        Request<Data>(path: "echo"), settings: .init(pingInterval: nil))
      try await socket.send("hello")
      var messages = socket.messages.makeAsyncIterator()
      #expect(try await messages.next() == .text("hello"))
      await socket.close()
      #expect(seen.withLock { $0 } == nil)
      #expect(tracer.clientSpans.isEmpty && tracer.memory.activeSpans.isEmpty)
    }

    @Test("the context goes on below the cache: an answer from it sends nothing and has no span")
    func cached() async throws {
      let tracer = W3CTestTracer()
      var configuration = configuration(tracer)
      configuration.cache = HTTPCache()
      let count = Locked(0)
      let loopback = try Loopback(configuration: configuration) { _, response in
        count.withLock { $0 += 1 }
        try await response.send(
          headers: ["Cache-Control": "max-age=600", "Vary": "traceparent"], text: "kept")
      }
      defer { loopback.stop() }
      for _ in 0..<2 {
        #expect(try await loopback.client.send(Request<String>(path: "kept")) == "kept")
      }
      #expect(count.withLock { $0 } == 1)
      #expect(tracer.clientSpans.count == 1)
    }
  }
#endif
