#if Logging
  import Courier
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import InMemoryLogging
  import Logging
  import Testing

  /// A logger writing every level to memory, and what it wrote. (swift-log's `Logger`: this
  /// target has a stand-in of that name for the Middleware article's snippet.)
  func memoryLogger() -> (Logging.Logger, InMemoryLogHandler) {
    var handler = InMemoryLogHandler()
    handler.logLevel = .trace
    return (Logging.Logger(label: "courier.tests") { _ in handler }, handler)
  }

  extension InMemoryLogHandler.Entry {
    /// The entry's metadata value for `key`, as text.
    func value(_ key: String) -> String? {
      metadata[key].map { "\($0)" }
    }

    /// The message and every metadata key and value, as text: what a log backend could print.
    var everything: String {
      ([message.description] + metadata.map { "\($0.key)=\($0.value)" }).joined(separator: "\n")
    }
  }

  @Suite("LoggingMiddleware(logger:) writes to swift-log")
  struct LoggingMiddlewareLoggerTests {
    func client(
      _ middleware: LoggingMiddleware, stub: StubTransport,
      observer: (@Sendable (HTTPEvent) -> Void)? = nil
    ) -> HTTPClient {
      var configuration = HTTPClient.Configuration()
      configuration.middleware = [middleware]
      configuration.observer = observer
      return makeClient(transport: stub, configuration: configuration)
    }

    @Test("a line out and a line back, with request id, method, URL, status and duration")
    func metadata() async throws {
      let (logger, handler) = memoryLogger()
      let stub = StubTransport().on(.get, "/movie/popular", .json(#"{"page":1,"results":[]}"#))
      _ = try await client(LoggingMiddleware(logger: logger), stub: stub)
        .send(MovieApi.popular(page: 2))
      let entries = handler.entries
      try #require(entries.count == 2)
      let url = "https://api.example.com/3/movie/popular?page=2"
      #expect(entries[0].level == .debug)
      #expect(entries[0].message.description == "→ GET \(url) (attempt 1)")
      #expect(entries[0].value("courier.request.id") == "1")
      #expect(entries[0].value("http.request.method") == "GET")
      #expect(entries[0].value("url.full") == url)
      #expect(entries[0].value("courier.attempt") == "1")
      #expect(entries[0].value("http.response.status_code") == nil)
      #expect(entries[1].level == .info)
      #expect(entries[1].message.description.hasPrefix("← 200 GET \(url) "))
      #expect(entries[1].value("courier.request.id") == "1")
      #expect(entries[1].value("http.response.status_code") == "200")
      let duration = try #require(entries[1].value("courier.duration_ms").flatMap(Double.init))
      #expect(duration >= 0 && duration < 60_000)
      #expect(entries[1].value("error.type") == nil)
    }

    @Test("a 404 is a warning and a timeout an error naming its HTTPError case")
    func failures() async throws {
      let (logger, handler) = memoryLogger()
      let stub = StubTransport()
        .on(.get, "/missing", .status(404))
        .fallback { _ throws(HTTPError) in throw .timedOut }
      let client = client(LoggingMiddleware(logger: logger), stub: stub)
      for path in ["missing", "slow"] {
        await #expect(throws: HTTPError.self) { try await client.send(Request<Data>(path: path)) }
      }
      let entries = handler.entries
      try #require(entries.count == 4)
      #expect(entries[1].level == .warning)
      #expect(entries[1].value("http.response.status_code") == "404")
      #expect(entries[1].value("courier.request.id") == "1")
      #expect(entries[3].level == .error)
      #expect(entries[3].value("error.type") == "timedOut")
      #expect(entries[3].value("courier.request.id") == "2")
      #expect(entries[3].value("courier.duration_ms") != nil)
    }

    @Test("with an observer, the id is the client's, as its events carry it: retries share it")
    func eventIDs() async throws {
      let (logger, handler) = memoryLogger()
      let ids = Locked<[UInt64]>([])
      let answers = Locked([503, 200, 200])
      let stub = StubTransport().fallback { _ throws(HTTPError) in
        .status(answers.withLock { $0.removeFirst() })
      }
      var configuration = HTTPClient.Configuration()
      // Inside the retries, the middleware sees each attempt.
      configuration.middleware = [
        RetryPolicy(maximumAttempts: 2, jitter: .none, clock: RecordingClock()),
        LoggingMiddleware(logger: logger),
      ]
      configuration.observer = { event in
        if case .started(let request) = event { ids.withLock { $0.append(request.id) } }
      }
      let client = makeClient(transport: stub, configuration: configuration)
      for path in ["a", "b"] { _ = try await client.send(Request<Data>(path: path)) }
      #expect(ids.withLock { $0 } == [1, 2])
      let logged = handler.entries.map { "\($0.value("courier.request.id") ?? "")" }
      #expect(logged == ["1", "1", "1", "1", "2", "2"])
      let attempts = handler.entries.map { "\($0.value("courier.attempt") ?? "")" }
      #expect(attempts == ["1", "1", "2", "2", "1", "1"])
      #expect(handler.entries[3].message.description.hasSuffix("bytes (attempt 2)"))
    }

    @Test("an Authorization header, an API key in the query and cookies never appear")
    func credentials() async throws {
      let (logger, handler) = memoryLogger()
      let stub = StubTransport().fallback { _ throws(HTTPError) in
        StubResponse(
          headers: ["Set-Cookie": "session=cookie-SECRET-2; Path=/"],
          text: "your key is apikey-SECRET")
      }
      var configuration = HTTPClient.Configuration()
      configuration.headers = [
        "Authorization": "Bearer bearer-SECRET", "Cookie": "session=cookie-SECRET-1",
      ]
      configuration.middleware = [
        APIKeyAuthentication(key: "apikey-SECRET", in: .query("api_key")),
        LoggingMiddleware(logger: logger, level: .bodies),
      ]
      let client = makeClient(transport: stub, configuration: configuration)
      _ = try await client.send(Request<String>(path: "me", query: ["page": 1]))
      let entries = handler.entries
      try #require(entries.count == 2)
      // The credentials were sent, and each is shown as redacted.
      let sent = try #require(stub.requests.first)
      #expect(sent.value(forHTTPHeaderField: "Authorization") == "Bearer bearer-SECRET")
      #expect(entries[0].value("url.full")?.contains("api_key=<redacted>") == true)
      #expect(entries[0].message.description.contains("Authorization: <redacted>"))
      #expect(entries[0].message.description.contains("Cookie: <redacted>"))
      #expect(entries[1].message.description.contains("Set-Cookie: <redacted>"))
      for entry in entries {
        for secret in ["bearer-SECRET", "apikey-SECRET", "cookie-SECRET"] {
          #expect(!entry.everything.contains(secret), "\(entry.everything)")
        }
      }
    }

    @Test("setting sink afterwards replaces the logger")
    func sinkReplacesLogger() async throws {
      let (logger, handler) = memoryLogger()
      let lines = Locked<[String]>([])
      var middleware = LoggingMiddleware(logger: logger)
      middleware.sink = { _, line in lines.withLock { $0.append(line) } }
      let stub = StubTransport().fallback { _ throws(HTTPError) in StubResponse(text: "ok") }
      _ = try await client(middleware, stub: stub).send(Request<String>(path: "a"))
      #expect(handler.entries.isEmpty)
      #expect(lines.withLock { $0.count } == 2)
    }
  }
#endif
