import Courier
import CourierTesting
import Foundation
import Testing

/// The part of swift-log's `Logger` the Middleware article's snippet uses, with its
/// signatures, so that the snippet compiles here without the package depending on swift-log.
struct Logger: Sendable {
  enum Level: String, Sendable { case trace, debug, info, notice, warning, error, critical }
  let entries: Locked<[(Level, String)]>

  func log(level: Level, _ message: @autoclosure () -> String) {
    let text = message()
    entries.withLock { $0.append((level, text)) }
  }
}

@Suite("LoggingMiddleware severities, as swift-log's levels")
struct LoggingSeverityTests {
  func logged(_ stub: StubTransport, _ endpoint: Request<String>) async -> [(Logger.Level, String)]
  {
    let logger = Logger(entries: Locked([]))
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      // The snippet, as the Middleware article shows it:
      LoggingMiddleware { severity, line in
        logger.log(level: Logger.Level(rawValue: severity.rawValue) ?? .info, "\(line)")
      }
    ]
    let client = HTTPClient(
      baseURL: URL(string: "https://api.example.com")!, configuration: configuration,
      transport: stub)
    _ = try? await client.send(endpoint)
    return logger.entries.withLock { $0 }
  }

  @Test("the request is debug, a 2xx or 3xx answer info")
  func success() async {
    let entries = await logged(
      StubTransport().on(.get, "/ok", StubResponse(text: "fine")), Request(path: "ok"))
    #expect(entries.map(\.0) == [.debug, .info])
    #expect(entries.last?.1.hasPrefix("← 200 GET https://api.example.com/ok") == true)
  }

  @Test("an answer of 400 or more is a warning")
  func clientError() async {
    let stub = StubTransport().on(.get, "/missing", StubResponse(status: 404, text: "no"))
    let entries = await logged(stub, Request(path: "missing"))
    #expect(entries.map(\.0) == [.debug, .warning])
  }

  @Test("a failure is an error, a cancellation only debug")
  func failures() async {
    let timedOut = StubTransport().on(.get, "/slow", failing: .timedOut)
    #expect(await logged(timedOut, Request(path: "slow")).map(\.0) == [.debug, .error])
    let cancelled = StubTransport().on(.get, "/gone", failing: .cancelled)
    #expect(await logged(cancelled, Request(path: "gone")).map(\.0) == [.debug, .debug])
  }

  @Test("every severity is spelt as a swift-log level")
  func spelling() {
    for severity in LoggingMiddleware.Severity.allCases {
      #expect(Logger.Level(rawValue: severity.rawValue) != nil, "\(severity)")
    }
  }
}

#if canImport(os)
  import os

  extension LoggingSeverityTests {
    @Test("the os.Logger snippet compiles (Apple platforms)")
    func osLogger() {
      let log = os.Logger(subsystem: "courier.tests", category: "http")
      _ = LoggingMiddleware { line in log.info("\(line, privacy: .public)") }
    }
  }
#endif
