import Courier
import CourierTestSupport
import Foundation

// The types the DocC articles (Sources/Courier/Courier.docc) declare, as they declare them.

// Getting started: `Book` and `BookDetails` are in CourierTestSupport (ArticleBook.swift), which
// the integration tests share.

// Describing endpoints
enum ShelfApi: Endpoint {
  typealias Response = BookPage
  case books(page: Int)
  case search(title: String, author: String?)

  var path: String {
    switch self {
    case .books: "books"
    case .search: "books/search"
    }
  }

  var query: Query {
    switch self {
    case .books(let page): ["page": page]
    case .search(let title, let author): ["title": title, "author": author]  // nil is left out
    }
  }
}

// Paging and parallel requests
struct BookPage: Decodable, Sendable {
  let books: [Book]
  let nextPage: Int?
}

extension ShelfApi: PagedEndpoint {
  func nextPage(after page: BookPage, response: HTTPResponse) -> ShelfApi? {
    page.nextPage.map { .books(page: $0) }
  }
}

// Errors
struct ShelfError: Decodable { let message: String }

// Middleware
struct ClientVersion: Middleware {
  func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
    -> HTTPResponse
  {
    var request = request
    request.headers["X-Client-Version"] = "2.4"
    return try await next(request)
  }
}

struct BodyBytes: Middleware {
  let count: @Sendable (Int) -> Void

  func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
    -> HTTPResponse
  {
    var response = try await next(request)
    count(response.body.count)  // a body read whole, or the start of an error's
    response.bodyStream = response.bodyStream?.mapChunks { chunk in
      count(chunk.count)
      return chunk
    }
    return response
  }
}

actor Tokens: CredentialProvider {
  private var current = "initial-token"
  func token() async throws(HTTPError) -> String { current }
  func refresh() async throws(HTTPError) -> String {
    current = "renewed-token"  // ask your identity provider here
    return current
  }
}

// Transfers and streaming
struct Delta: Decodable { let text: String }
