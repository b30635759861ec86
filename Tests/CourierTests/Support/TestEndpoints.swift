import Courier
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

struct Movie: Codable, Sendable, Equatable {
  var id: Int
  var title: String
}

struct MoviePage: Codable, Sendable, Equatable {
  var page: Int
  var results: [Movie]
}

enum MovieApi: Endpoint {
  typealias Response = MoviePage
  case popular(page: Int)
  case search(text: String, adult: Bool?)

  var path: String {
    switch self {
    case .popular: "movie/popular"
    case .search: "search/movie"
    }
  }

  var query: Query {
    switch self {
    case .popular(let page): ["page": page]
    case .search(let text, let adult): ["query": text, "include_adult": adult]
    }
  }
}

struct Rating: Codable, Sendable, Equatable {
  var value: Double
}

let testBaseURL = URL(string: "https://api.example.com/3")!

/// A transport that records that something was sent and refuses it, for tests that prove
/// bad input never reaches the transport.
struct RefusingTransport: HTTPTransport {
  let stub = StubTransport()

  var sentCount: Int { stub.requests.count }

  func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
    -> TransportResponse
  {
    _ = try await stub.send(request, options: options)
    throw .transport(URLError(.unsupportedURL))
  }
}

func makeClient(
  transport: any HTTPTransport = StubTransport(),
  configuration: HTTPClient.Configuration = HTTPClient.Configuration(),
  baseURL: URL = testBaseURL
) -> HTTPClient {
  HTTPClient(baseURL: baseURL, configuration: configuration, transport: transport)
}

extension HTTPError {
  /// The reason of an `invalidRequest`, or nil.
  var invalidRequestReason: String? {
    if case .invalidRequest(let reason) = self { return reason }
    return nil
  }
}
