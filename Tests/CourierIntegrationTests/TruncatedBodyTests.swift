import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A body cut short by the server is a lost connection (Errors: `transport`, "the connection
/// failed: … lost, a truncated body"; `MalformedResponseTests.bodyCutShort` shows the error on
/// both transports), which ``RetryPolicy`` retries for a `GET` ("connection lost"), on every
/// transport. FoundationNetworking reported it as `URLError.unknown`, which no retry takes.
@Suite("A body cut short is a lost connection", .timeLimit(.minutes(1)))
struct TruncatedBodyTests {
  /// A server whose first `cut` answers announce 1,000 bytes and close after 100, and whose
  /// later ones answer "whole".
  static func server(cutting cut: Int, count: Locked<Int>) throws -> LoopbackServer {
    try LoopbackServer { _, response in
      let arrival = count.withLock {
        $0 += 1
        return $0
      }
      guard arrival <= cut else { return try await response.send(text: "whole") }
      try await response.writeHead(contentLength: 1000)
      try await response.write(Data(count: 100))
      response.closeConnection()
    }
  }

  @Test("RetryPolicy retries a GET whose body was cut short, and it is answered whole")
  func retried() async throws {
    let count = Locked(0)
    let server = try Self.server(cutting: 1, count: count)
    defer { server.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [RetryPolicy(baseDelay: .zero)]
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    #expect(try await client.send(Request<String>(path: "x")) == "whole")
    #expect(count.withLock { $0 } == 2)
  }
}
