/// A movie as TMDB describes it: in a list (`movie/popular`) or on its own (`movie/{id}`).
///
/// Lists and details share one type; the fields only the details carry (`runtime`,
/// `genres`, `tagline`) are optional. JSON keys are snake_case (`release_date`); the
/// client's decoder converts them (see ``TMDBCoding``).
struct Movie: Codable, Sendable, Equatable {
  /// TMDB's id for the movie.
  var id: Int
  /// The title in the requested language.
  var title: String
  /// A paragraph about the plot; may be empty.
  var overview: String
  /// `yyyy-MM-dd`, or empty when TMDB does not know it.
  var releaseDate: String
  /// The average rating, 0–10.
  var voteAverage: Double
  /// How many votes the average is made of.
  var voteCount: Int
  /// The poster's path on TMDB's image server (`/abc.jpg`), if there is a poster.
  var posterPath: String?
  /// The genres by id, in lists.
  var genreIds: [Int]?
  /// The genres by name, in details.
  var genres: [Genre]?
  /// The running time in minutes, in details.
  var runtime: Int?
  /// A one-line tagline, in details.
  var tagline: String?

  /// The year of release, or `nil` when the date is unknown.
  var year: String? {
    releaseDate.count >= 4 ? String(releaseDate.prefix(4)) : nil
  }

  /// The poster at TMDB's image server in width `size` (`w500`, `original` …).
  func posterURL(size: String = "w500") -> String? {
    posterPath.map { "https://image.tmdb.org/t/p/\(size)\($0)" }
  }
}

/// A genre: an id and its name.
struct Genre: Codable, Sendable, Equatable {
  /// TMDB's id for the genre.
  var id: Int
  /// The name, e.g. `Drama`.
  var name: String
}
