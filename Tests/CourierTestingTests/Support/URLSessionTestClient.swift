import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A response as a test client received it.
struct FetchedResponse: Sendable {
  let status: Int
  /// Header values by lowercased name.
  let headers: [String: String]
  let body: Data

  var text: String { String(decoding: body, as: UTF8.self) }

  func header(_ name: String) -> String? {
    headers[name.lowercased()]
  }
}

/// A URLSession of its own for one test, used through completion-handler data tasks
/// (the async `data(for:)` can deadlock on cancellation on Linux). Call `invalidate()` at
/// the end of the test.
final class URLSessionTestClient: Sendable {
  let session: URLSession

  init(maxConnectionsPerHost: Int = 6) {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.httpCookieAcceptPolicy = .never
    configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
    session = URLSession(configuration: configuration)
  }

  func get(_ url: URL) async throws -> FetchedResponse {
    try await fetch(URLRequest(url: url))
  }

  func fetch(_ request: URLRequest) async throws -> FetchedResponse {
    try await withCheckedThrowingContinuation { continuation in
      session.dataTask(with: request) { data, response, error in
        continuation.resume(with: Self.outcome(data, response, error))
      }.resume()
    }
  }

  /// Starts a data task and returns it, for a test that cancels it; `completion` gets
  /// the outcome.
  func start(
    _ url: URL, completion: @escaping @Sendable (Result<FetchedResponse, any Error>) -> Void
  ) -> URLSessionDataTask {
    let task = session.dataTask(with: url) { data, response, error in
      completion(Self.outcome(data, response, error))
    }
    task.resume()
    return task
  }

  func invalidate() {
    session.finishTasksAndInvalidate()
  }

  private static func outcome(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?)
    -> Result<FetchedResponse, any Error>
  {
    if let error { return .failure(error) }
    guard let http = response as? HTTPURLResponse else {
      return .failure(URLError(.badServerResponse))
    }
    var headers: [String: String] = [:]
    for case (let name as String, let value as String) in http.allHeaderFields {
      headers[name.lowercased()] = value
    }
    return .success(
      FetchedResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
  }
}
