import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A JSON field whose name is a credential's may hold a list of them (`tokens`, `api_keys`,
/// `scopes` aside): each value of the list is hidden as a lone value would be, in the
/// request body and the answer a log prints, and in a curl command.
@Suite("Lists under a credential's name", .timeLimit(.minutes(1)))
struct CredentialListTests {
  @Test("a list of tokens shows in no log line or curl command; other lists do")
  func tokenLists() async throws {
    let printed = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      LoggingMiddleware(level: .bodies) { line in printed.withLock { $0.append(line) } }
    ]
    let loopback = try Loopback(configuration: configuration) { _, response in
      try await response.send(
        json: #"{"api_keys":["k-SECRET-c",{"id":7,"key":"k-SECRET-d"}],"items":[1,2]}"#)
    }
    defer { loopback.stop() }
    let endpoint = Request<Data>(
      method: .post, path: "sessions",
      body: .json(["refresh_tokens": ["t1-SECRET-a", "t2-SECRET-b"], "names": ["ann"]]))
    _ = try await loopback.client.send(endpoint)
    let curl = try loopback.client.curlCommand(for: endpoint)
    let texts = printed.withLock { $0 } + [curl]
    for text in texts {
      #expect(!text.contains("SECRET"), "\(text)")
    }
    // The good-path twin: lists under other names show, and so do an object's other fields.
    let all = texts.joined(separator: "\n")
    #expect(all.contains(#""names":["ann"]"#), "\(all)")
    #expect(all.contains(#""items":[1,2]"#), "\(all)")
    #expect(all.contains(#""id":7"#), "\(all)")
  }
}
