import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// The snippets of the article "Testing your API client": the stub test is itself a test,
/// the loopback server answers over a real socket, and the conformance snippet runs one check.
@Suite("Documentation: testing your API client")
struct ArticleTestingTests {
  @Test func bookDetailsDecode() async throws {
    let stub = StubTransport()
      .on(.get, "/v1/books/7", .json(#"{"id":7,"title":"Dune"}"#))
      .on(.get, "/v1/books/8", failing: .timedOut)
    let client = HTTPClient(baseURL: URL(string: "https://shelf.test/v1")!, transport: stub)

    #expect(try await client.send(BookDetails(id: 7)).title == "Dune")
    await #expect(throws: HTTPError.timedOut) { try await client.send(BookDetails(id: 8)) }
    #expect(stub.requests.count == 2)
  }

  @Test("the loopback server answers the article's handler")
  func loopback() async throws {
    let server = try LoopbackServer { request, response in
      try await response.send(json: #"{"id":7,"title":"Dune"}"#)
    }
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    let book = try await client.send(BookDetails(id: 7))
    #expect(book.title == "Dune")
  }

  /// The article's conformance snippet, run here on its first check only: the whole suite
  /// runs on `URLSessionTransport` in `TransportConformanceTests`.
  @Test(arguments: TransportConformance.checks.prefix(1))
  func conforms(_ check: TransportConformance.Check) async throws {
    try await check.run(on: URLSessionTransport())
  }
}
