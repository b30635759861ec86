/// One page of a movie list (`movie/popular`, `movie/{id}/recommendations`).
///
/// ```json
/// {"page": 1, "results": [ … ], "total_pages": 3, "total_results": 60}
/// ```
struct MoviePage: Codable, Sendable, Equatable {
  /// The page number, from 1.
  var page: Int
  /// The movies on this page, in the list's order.
  var results: [Movie]
  /// How many pages the whole list has.
  var totalPages: Int
  /// How many movies the whole list has.
  var totalResults: Int

  /// Movies per page: TMDB's lists have 20 on every page but the last.
  static let size = 20
}
