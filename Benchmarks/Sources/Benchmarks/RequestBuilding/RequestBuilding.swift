import Benchmark
import BenchmarkFixtures
import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// Request building alone: `client.urlRequest(for:)` (URL joining, query encoding, header
// merging and validation, JSON body encoding) against a hand-written URLRequest for the same
// request. Each measured iteration builds 1,000 requests; run.sh divides by 1,000.
//
//   swift package --package-path Benchmarks benchmark --target RequestBuilding

private let baseURL = URL(string: "https://api.themoviedb.org/3")!
private let client = HTTPClient(baseURL: baseURL)
private let requestsPerIteration = 1000

/// A search with five query items: text with spaces, `&` and unicode, a number, a boolean, a
/// language and a list.
private let search = Request<MoviePage>(
  path: "search/movie",
  query: [
    "query": "Crouching Tiger & Hidden Dragon: Sword of Destiny — 臥虎藏龍", "year": 2016,
    "include_adult": false, "language": "de-DE", "with_genres": [18, 28],
  ])

/// A POST with a JSON body (one movie).
private let create = Request<Movie>(
  method: .post, path: "list/42/items", body: .json(Movie(id: 7)))

/// The search, written by hand with URLComponents.
private func handWrittenSearch() -> URLRequest {
  var components = URLComponents(
    url: baseURL.appendingPathComponent("search/movie"), resolvingAgainstBaseURL: false)!
  components.queryItems = [
    URLQueryItem(name: "query", value: "Crouching Tiger & Hidden Dragon: Sword of Destiny — 臥虎藏龍"),
    URLQueryItem(name: "year", value: "2016"),
    URLQueryItem(name: "include_adult", value: "false"),
    URLQueryItem(name: "language", value: "de-DE"),
    URLQueryItem(name: "with_genres", value: "18,28"),
  ]
  var request = URLRequest(url: components.url!)
  request.setValue("application/json", forHTTPHeaderField: "Accept")
  return request
}

/// The POST, written by hand with a JSONEncoder made once.
private func handWrittenCreate(encoder: JSONEncoder) throws -> URLRequest {
  var request = URLRequest(url: baseURL.appendingPathComponent("list/42/items"))
  request.httpMethod = "POST"
  request.httpBody = try encoder.encode(Movie(id: 7))
  request.setValue("application/json", forHTTPHeaderField: "Content-Type")
  request.setValue("application/json", forHTTPHeaderField: "Accept")
  return request
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal],
    timeUnits: .microseconds,
    warmupIterations: 3,
    maxDuration: .seconds(benchmarkSeconds(default: 1)),
    maxIterations: 300
  )

  Benchmark("GET with 5 query items, client.urlRequest(for:)") { _ in
    for _ in 0..<requestsPerIteration { blackHole(try client.urlRequest(for: search)) }
  }
  Benchmark("GET with 5 query items, hand-written URLComponents") { _ in
    for _ in 0..<requestsPerIteration { blackHole(handWrittenSearch()) }
  }
  Benchmark("POST with JSON body, client.urlRequest(for:)") { _ in
    for _ in 0..<requestsPerIteration { blackHole(try client.urlRequest(for: create)) }
  }
  Benchmark("POST with JSON body, hand-written JSONEncoder") { _ in
    let encoder = JSONEncoder()
    for _ in 0..<requestsPerIteration { blackHole(try handWrittenCreate(encoder: encoder)) }
  }
}
