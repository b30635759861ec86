import Foundation

/// A movie as the benchmarks decode it.
public struct Movie: Decodable, Sendable {
  /// The movie's id.
  public let id: Int
  /// The title.
  public let title: String
}

/// A TMDB-shaped page of 20 movies, the payload every benchmark sends and decodes.
public struct MoviePage: Decodable, Sendable {
  /// The page number.
  public let page: Int
  /// The movies on it.
  public let results: [Movie]

  /// The JSON body of a page.
  public static let body = Data(
    """
    {"page":1,"total_pages":500,"results":[\((0..<20).map { #"{"id":\#($0),"title":"Movie \#($0)"}"# }.joined(separator: ","))]}
    """.utf8)
}
