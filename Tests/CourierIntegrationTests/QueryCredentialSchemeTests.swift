import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A credential in a query item may carry its scheme, as a header's does
/// (`?authorization=Bearer%20…`, for a client that cannot set headers): the token alone,
/// echoed, is the credential still.
@Suite("A query credential with its scheme", .timeLimit(.minutes(1)))
struct QueryCredentialSchemeTests {
  @Test("its token echoed alone shows in no error, log line or event; other items do")
  func tokenAlone() async throws {
    let printed = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      LoggingMiddleware(level: .bodies) { line in printed.withLock { $0.append(line) } }
    ]
    configuration.observer = { event in printed.withLock { $0.append("\(event)") } }
    let loopback = try Loopback(configuration: configuration) { request, response in
      let items = Dictionary(
        request.queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
      let token = items["authorization"]?.split(separator: " ").last ?? "-"
      try await response.send(
        status: 401, text: "token \(token) expired (page \(items["page"] ?? "-"))")
    }
    defer { loopback.stop() }
    let caught = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(
        Request<String>(path: "feed", query: ["authorization": "Bearer q-SECRET-7", "page": 2]))
    }
    let error = try #require(caught)
    let body = String(decoding: error.response?.body ?? Data(), as: UTF8.self)
    #expect(body.contains("q-SECRET-7"))
    let texts = ["\(error)", error.localizedDescription] + printed.withLock { $0 }
    for text in texts {
      #expect(!text.contains("SECRET"), "\(text)")
    }
    // The good-path twin: what is no credential shows.
    #expect("\(error)".contains("expired (page 2)"), "\(error)")
  }
}
