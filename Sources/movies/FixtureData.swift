/// The fixture API's catalogue: 60 invented movies in three pages of 20, with details,
/// recommendations and videos, all derived from a movie's position so that every run
/// serves the same data.
struct FixtureData: Sendable {
  /// The movie whose `videos` endpoint never answers promptly, to show cancellation.
  static let slowVideosID = 1007

  /// An id no movie has, here or on TMDB, for the not-found example.
  static let unknownID = 99_999_999

  /// Every movie with its details, most popular first.
  let movies: [Movie]
  private let indexByID: [Int: Int]

  /// Builds the catalogue.
  init() {
    let variants = ["", " II", ": Origins"]
    movies = variants.indices.flatMap { round in
      Self.titles.indices.map { title in
        Self.movie(at: round * Self.titles.count + title, variant: variants[round])
      }
    }
    indexByID = Dictionary(uniqueKeysWithValues: movies.enumerated().map { ($1.id, $0) })
  }

  /// The movie `id` with its details, or `nil` when there is none.
  func movie(id: Int) -> Movie? {
    indexByID[id].map { movies[$0] }
  }

  /// Page `number` of the popular list; past the last page the results are empty, as on TMDB.
  func popular(page number: Int) -> MoviePage {
    let start = (number - 1) * MoviePage.size
    let slice =
      start < movies.count ? movies[start..<min(start + MoviePage.size, movies.count)] : []
    return MoviePage(
      page: number,
      results: slice.map(Self.listItem),
      totalPages: (movies.count + MoviePage.size - 1) / MoviePage.size,
      totalResults: movies.count)
  }

  /// Eight movies recommended after the movie `id`, on one page.
  func recommendations(for id: Int) -> MoviePage? {
    guard let index = indexByID[id] else { return nil }
    let picks = (1...8).map { movies[(index + $0 * 7) % movies.count] }
    return MoviePage(page: 1, results: picks.map(Self.listItem), totalPages: 1, totalResults: 8)
  }

  /// The trailer and teaser of the movie `id`.
  func videos(for id: Int) -> VideoList? {
    guard let movie = movie(id: id) else { return nil }
    let kinds = [("Official Trailer", "Trailer"), ("Teaser", "Teaser")]
    let videos = kinds.enumerated().map { number, kind in
      Video(
        id: Self.token(seed: id * 10 + number, length: 24, alphabet: "0123456789abcdef"),
        name: kind.0,
        key: Self.token(seed: id * 10 + number, length: 11, alphabet: Self.base62),
        site: "YouTube",
        type: kind.1,
        official: true,
        publishedAt: "\(movie.releaseDate)T16:00:00.000Z")
    }
    return VideoList(id: id, results: videos)
  }

  // MARK: - Generating

  private static let titles = [
    "The Lighthouse Keeper's Daughter", "Midnight in Marrakesh", "Iron Meridian",
    "The Last Orchard", "Paper Satellites", "Salt and Silver", "A Quiet Frontier",
    "The Glass Cartographer", "Northbound", "Echoes of Valparaíso", "Small Hours",
    "The Winter Regatta", "Copper Sky", "Harbor Lights", "The Understudy", "Ember Road",
    "Signal Lost", "The Cartwright Inheritance", "Tides of August", "Neon Saints",
  ]

  private static let genres = [
    Genre(id: 18, name: "Drama"), Genre(id: 53, name: "Thriller"),
    Genre(id: 12, name: "Adventure"), Genre(id: 35, name: "Comedy"),
    Genre(id: 878, name: "Science Fiction"), Genre(id: 10749, name: "Romance"),
    Genre(id: 9648, name: "Mystery"), Genre(id: 28, name: "Action"),
  ]

  private static let heroes = [
    "a retired cartographer", "two estranged sisters", "a night-shift radio host",
    "a young ferry pilot", "a disgraced detective",
  ]
  private static let quests = [
    "must find a missing ledger", "chase a rumour across three borders",
    "keep a promise made thirty years ago", "outwit a rival crew",
  ]
  private static let deadlines = [
    "before the first snow", "before the tide turns", "before the festival ends",
  ]

  private static let base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

  private static func movie(at index: Int, variant: String) -> Movie {
    let id = 1001 + index
    let month = number(seed: id, salt: 2, in: 1...12)
    let first = genres[index % genres.count]
    let second = genres[number(seed: id, salt: 3, in: 0...(genres.count - 1))]
    let hero = heroes[index % heroes.count]
    let quest = quests[(index / 2) % quests.count]
    let deadline = deadlines[index % deadlines.count]
    return Movie(
      id: id,
      title: titles[index % titles.count] + variant,
      overview: "In this \(first.name.lowercased()), \(hero) \(quest) \(deadline).",
      releaseDate: "\(number(seed: id, salt: 1, in: 1987...2024))-\(twoDigits(month))-"
        + twoDigits(number(seed: id, salt: 4, in: 1...28)),
      voteAverage: Double(number(seed: id, salt: 5, in: 58...87)) / 10,
      voteCount: number(seed: id, salt: 6, in: 200...24_000),
      posterPath: "/" + token(seed: id, length: 27, alphabet: base62) + ".jpg",
      genreIds: nil,
      genres: first == second ? [first] : [first, second],
      runtime: number(seed: id, salt: 7, in: 84...168),
      tagline: "\(deadline.prefix(1).uppercased())\(deadline.dropFirst()), everything changes.")
  }

  /// A movie as lists show it: genre ids instead of the details.
  private static func listItem(_ movie: Movie) -> Movie {
    var item = movie
    item.genreIds = movie.genres?.map(\.id)
    item.genres = nil
    item.runtime = nil
    item.tagline = nil
    return item
  }

  /// A number in `range` that looks random but is the same for the same seed and salt.
  private static func number(seed: Int, salt: Int, in range: ClosedRange<Int>) -> Int {
    var generator = SplitMix(seed: seed &* 1_000 &+ salt)
    return range.lowerBound + generator.next(below: range.count)
  }

  /// `length` characters from `alphabet`, the same for the same seed.
  private static func token(seed: Int, length: Int, alphabet: String) -> String {
    let characters = Array(alphabet)
    var generator = SplitMix(seed: seed)
    return String((0..<length).map { _ in characters[generator.next(below: characters.count)] })
  }

  /// SplitMix64: numbers that look random, with no randomness, so that every run serves
  /// the same data.
  private struct SplitMix {
    private var state: UInt64

    init(seed: Int) {
      state = UInt64(truncatingIfNeeded: seed)
    }

    /// The next number in `0..<bound`.
    mutating func next(below bound: Int) -> Int {
      state &+= 0x9E37_79B9_7F4A_7C15
      var mixed = state
      mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
      mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
      mixed ^= mixed >> 31
      return Int(mixed % UInt64(bound))
    }
  }

  private static func twoDigits(_ number: Int) -> String {
    number < 10 ? "0\(number)" : "\(number)"
  }
}
