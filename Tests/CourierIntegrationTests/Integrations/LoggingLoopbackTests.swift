#if Logging
  import Courier
  import CourierTesting
  import Foundation
  import InMemoryLogging
  import Logging
  import Testing

  @Suite("LoggingMiddleware(logger:) over sockets", .timeLimit(.minutes(1)))
  struct LoggingLoopbackTests {
    @Test("credentials sent over a socket, and echoed back, are in no message or metadata")
    func credentials() async throws {
      let received = Locked<[String]>([])
      var handler = InMemoryLogHandler()
      handler.logLevel = .trace
      let logger = Logger(label: "courier.tests") { _ in handler }
      var configuration = HTTPClient.Configuration()
      configuration.headers = [
        "Authorization": "Bearer bearer-SECRET", "Cookie": "session=cookie-SECRET-1",
      ]
      configuration.middleware = [
        APIKeyAuthentication(key: "apikey-SECRET", in: .query("api_key")),
        LoggingMiddleware(logger: logger, level: .bodies),
      ]
      let loopback = try Loopback(configuration: configuration) { request, response in
        received.withLock {
          $0 += [
            request.headers["Authorization"] ?? "", request.headers["Cookie"] ?? "",
            request.queryValues("api_key").joined(),
          ]
        }
        try await response.send(
          status: 401, headers: ["Set-Cookie": "session=cookie-SECRET-2"],
          text: "bad key apikey-SECRET for bearer-SECRET")
      }
      defer { loopback.stop() }
      await #expect(throws: HTTPError.self) {
        try await loopback.client.send(Request<Data>(path: "me", query: ["page": 1]))
      }
      #expect(
        received.withLock { $0 } == [
          "Bearer bearer-SECRET", "session=cookie-SECRET-1", "apikey-SECRET",
        ])
      let entries = handler.entries
      try #require(entries.count == 2)
      #expect(entries[1].level == .warning)
      #expect(entries[1].metadata["http.response.status_code"] == "401")
      let url = "\(loopback.server.baseURL)/3/me?page=1&api_key=<redacted>"
      #expect(entries[1].metadata["url.full"] == "\(url)")
      for entry in entries {
        let text = ([entry.message.description] + entry.metadata.map { "\($0.key)=\($0.value)" })
          .joined(separator: "\n")
        for secret in ["bearer-SECRET", "apikey-SECRET", "cookie-SECRET"] {
          #expect(!text.contains(secret), "\(text)")
        }
      }
    }
  }
#endif
