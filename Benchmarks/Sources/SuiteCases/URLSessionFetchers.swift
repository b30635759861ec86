import BenchmarkFixtures
import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The URLSession baselines: what a user writes without a library.
enum URLSessionFetchers {
  /// Courier's default session configuration, which the raw baselines share so that the
  /// comparison is of code, not of settings.
  static func courierConfiguredSession() -> URLSession {
    URLSession(configuration: URLSessionTransport.defaultSessionConfiguration())
  }

  /// A completion-handler data task wrapped in a checked continuation: the thinnest async
  /// wrapper. The body is decoded on the caller's task, not on URLSession's delegate queue.
  static func completionHandler(session: URLSession, url: @escaping @Sendable (Int) -> URL)
    -> @Sendable (Int) async throws -> Data
  {
    { index in
      try await withCheckedThrowingContinuation { continuation in
        session.dataTask(with: URLRequest(url: url(index))) { data, response, error in
          if let error {
            continuation.resume(throwing: error)
          } else if let data, (response as? HTTPURLResponse)?.statusCode == 200 {
            continuation.resume(returning: data)
          } else {
            continuation.resume(throwing: URLError(.badServerResponse))
          }
        }.resume()
      }
    }
  }

  /// URLSession's own async `data(for:)`. (On Linux it can deadlock when cancelled; nothing
  /// is cancelled here.)
  static func asyncData(session: URLSession, url: @escaping @Sendable (Int) -> URL)
    -> @Sendable (Int) async throws -> Data
  {
    { index in
      let (data, response) = try await session.data(for: URLRequest(url: url(index)))
      guard (response as? HTTPURLResponse)?.statusCode == 200 else {
        throw URLError(.badServerResponse)
      }
      return data
    }
  }
}
