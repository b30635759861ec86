import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A servlet container with cookies off puts its session in the path (`;jsessionid=…`) and
/// redirects to it: a path segment's parameter under a credential's name is one, in every
/// URL Courier prints, as a query item is.
@Suite("A session in a path parameter", .timeLimit(.minutes(1)))
struct PathParameterSecretTests {
  @Test("a redirect to ;jsessionid=… shows the session in no error, dump or event")
  func jsessionid() async throws {
    let printed = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.observer = { event in printed.withLock { $0.append("\(event)") } }
    let loopback = try Loopback(configuration: configuration) { request, response in
      if request.path.hasSuffix("/login") {
        try await response.send(
          status: 302, headers: ["Location": "/3/app;jsessionid=js-SECRET-1;lang=en?x=1"])
      } else {
        try await response.send(status: 403, text: "no")
      }
    }
    defer { loopback.stop() }
    let caught = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(Request<String>(path: "login"))
    }
    let error = try #require(caught)
    #expect(error.response?.url?.absoluteString.contains("js-SECRET-1") == true)  // as it came
    let texts = error.printedForms + printed.withLock { $0 }
    for text in texts {
      #expect(!text.contains("SECRET"), "\(text)")
    }
    // The good-path twin: the segment and its other parameters show.
    #expect("\(error)".contains("/3/app;jsessionid=<redacted>;lang=en?x=1"), "\(error)")
  }
}
