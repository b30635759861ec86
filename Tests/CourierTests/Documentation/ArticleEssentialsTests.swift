import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// The snippets of the articles "Getting started", "Describing endpoints" and "Errors", run
/// against a stub.
@Suite("Documentation: getting started, endpoints, errors")
struct ArticleEssentialsTests {
  static let shelf = StubTransport()
    .on(.get, "/v1/books/7", .json(#"{"id":7,"title":"Dune"}"#))
    .on(.get, "/v1/books/404", .json(#"{"message":"no such book"}"#, status: 404))
    .on(.get, "/v1/books/-1", .json(#"{"message":"ids are positive"}"#, status: 400))
    .on(.patch, "/v1/books/7", .json(#"{"id":7,"title":"The Left Hand of Darkness"}"#))

  func client() -> HTTPClient {
    HTTPClient(baseURL: URL(string: "https://shelf.example/v1")!, transport: Self.shelf)
  }

  @Test("getting started: send and response")
  func gettingStarted() async throws {
    let client = client()
    let book = try await client.send(BookDetails(id: 7))  // a Book
    let answer = try await client.response(for: BookDetails(id: 7))  // the Book, status, headers
    #expect(book.title == "Dune")
    #expect(answer.response.status == 200)
  }

  @Test("getting started: one-off calls with Request, an absolute URL among them")
  func oneOffCalls() async throws {
    let stub = StubTransport()
      .on(.get, "/v1/movie/550", .json(#"{"id":550,"title":"Fight Club"}"#))
      .on(.post, "/v1/movie/550/rating", .status(201))
      .fallback { request throws(HTTPError) in StubResponse(text: "\(request.url!)") }
    let client = HTTPClient(baseURL: URL(string: "https://shelf.example/v1")!, transport: stub)
    let movie = try await client.send(Request<Movie>(path: "movie/550"))
    try await client.send(
      Request<EmptyResponse>(
        method: .post, path: "movie/550/rating", body: .json(Rating(value: 8.5))))
    // an absolute URL works too
    let html = try await client.send(Request<String>(path: "https://example.com/"))
    #expect(movie.title == "Fight Club")
    #expect(html == "https://example.com/")
    let rating = try #require(stub.requests.dropFirst().first)
    #expect(rating.httpBody.map { String(decoding: $0, as: UTF8.self) } == #"{"value":8.5}"#)
    #expect(rating.httpMethod == "POST")
  }

  @Test("describing endpoints: a body, and the request without sending it")
  func describingEndpoints() async throws {
    let client = client()
    let rename = Request<Book>(
      method: .patch, path: "books/\(segment: "7")",
      body: .json(["title": "The Left Hand of Darkness"]))
    #expect(try await client.send(rename).title == "The Left Hand of Darkness")
    let request = try client.urlRequest(for: ShelfApi.search(title: "Dune", author: nil))
    #expect(request.url?.absoluteString == "https://shelf.example/v1/books/search?title=Dune")
    #expect(request.httpMethod == "GET")
  }

  @Test("errors: a 404 caught by case, an API payload decoded")
  func errors() async {
    let client = client()
    var said: [String] = []
    do {
      _ = try await client.send(BookDetails(id: 404))
    } catch .unacceptableStatus(let response) where response.status == 404 {
      said.append("no such book")
    } catch .timedOut {
      said.append("try again later")
    } catch {
      said.append("\(error)")
    }
    do {
      _ = try await client.send(BookDetails(id: -1))
    } catch {
      if let payload = error.decodeBody(as: ShelfError.self) { said.append(payload.message) }
    }
    #expect(said == ["no such book", "ids are positive"])
  }
}
