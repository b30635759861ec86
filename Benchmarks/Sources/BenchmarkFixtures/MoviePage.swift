import Foundation

/// A movie as TMDB lists it, as the benchmarks decode it.
public struct Movie: Codable, Sendable {
  /// The movie's id.
  public let id: Int
  /// The title.
  public let title: String
  /// A short summary.
  public let overview: String
  /// The release date, `yyyy-MM-dd`.
  public let releaseDate: String
  /// The average rating, 0 to 10.
  public let voteAverage: Double
  /// The poster image's path.
  public let posterPath: String
  /// The genres' ids.
  public let genreIds: [Int]

  enum CodingKeys: String, CodingKey {
    case id, title, overview
    case releaseDate = "release_date"
    case voteAverage = "vote_average"
    case posterPath = "poster_path"
    case genreIds = "genre_ids"
  }

  /// A movie of the fixture page.
  public init(id: Int) {
    self.id = id
    title = "Movie \(id)"
    overview = "A film about the number \(id)."
    releaseDate = "2020-01-\(10 + id % 20)"
    voteAverage = 5 + Double(id % 50) / 10
    posterPath = "/poster\(id).jpg"
    genreIds = [18, 28 + id % 3]
  }
}

/// A TMDB-shaped page of 20 movies (about 3 KB of JSON), the payload every benchmark sends and
/// decodes.
public struct MoviePage: Codable, Sendable {
  /// The page number.
  public let page: Int
  /// The movies on it.
  public let results: [Movie]
  /// How many pages the list has.
  public let totalPages: Int
  /// How many movies the list has.
  public let totalResults: Int

  enum CodingKeys: String, CodingKey {
    case page, results
    case totalPages = "total_pages"
    case totalResults = "total_results"
  }

  /// The fixture page: page 1 of 500, movies 1 to 20.
  public static let fixture = MoviePage(
    page: 1, results: (1...20).map(Movie.init(id:)), totalPages: 500, totalResults: 10_000)

  /// The JSON body of the fixture page, as nginx serves it (`page.json`).
  public static let body: Data = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return try! encoder.encode(fixture)
  }()
}
