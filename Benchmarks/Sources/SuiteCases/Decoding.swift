import BenchmarkFixtures
import Foundation

/// What a fetched body becomes: a decoded ``MoviePage`` or the bytes themselves.
enum Decoding: String {
  /// JSON decoded into a `MoviePage` with `JSONDecoder`; the check value is the movie count.
  case page
  /// Kept as bytes; the check value is the byte count.
  case data

  /// The check value the decoded body gives.
  func check(_ data: Data, with decoder: JSONDecoder) throws -> Int {
    switch self {
    case .page: try decoder.decode(MoviePage.self, from: data).results.count
    case .data: data.count
    }
  }
}
