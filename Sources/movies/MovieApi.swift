import Courier
import Foundation

/// The TMDB v3 movie endpoints this program calls.
///
/// An enum has one `Response` type, and TMDB's calls answer different types. So the cases
/// are the calls that answer a ``MoviePage`` — the classic enum endpoint — and the calls
/// that answer something else are small typed endpoints (``Details``, ``Videos``) made by
/// static functions named like cases. Every call site reads the same and is typed by the
/// compiler:
///
/// ```swift
/// let page = try await client.send(MovieApi.popular(page: 1))     // MoviePage
/// let movie = try await client.send(MovieApi.details(id: 550))    // Movie
/// let videos = try await client.send(MovieApi.video(id: 550))     // VideoList
/// ```
///
/// The page cases are a ``PagedEndpoint`` too, so `for try await page in
/// client.pages(MovieApi.popular(page: 1))` reads the list page after page.
///
/// The alternatives are worse: one `Response` enum wrapping every answer makes each caller
/// switch over answers it knows it cannot get, and a case per call with `Response = Data`
/// gives up the typing that is the point of `Endpoint`.
enum MovieApi: Endpoint {
  /// Every case answers a page of movies.
  typealias Response = MoviePage

  /// The current popular movies, 20 to a page, from page 1.
  case popular(page: Int)
  /// Movies recommended to someone who liked the movie `id`.
  case recommended(id: Int, page: Int = 1)

  var path: String {
    switch self {
    case .popular: "movie/popular"
    case .recommended(let id, _): "movie/\(id)/recommendations"
    }
  }

  var query: Query {
    switch self {
    case .popular(let page), .recommended(_, let page): ["page": page]
    }
  }
}

extension MovieApi: PagedEndpoint {
  /// The last page TMDB serves: `total_pages` can be larger, but asking for a page past 500
  /// is a 400 with TMDB's code 22.
  static let lastServedPage = 500

  /// The same list's next page, going by TMDB's page numbers: `nil` after the last page
  /// (`page == total_pages`, or page 500), so `client.pages(.popular(page: 1))` ends there.
  func nextPage(after page: MoviePage, response: HTTPResponse) -> MovieApi? {
    guard page.page < min(page.totalPages, Self.lastServedPage) else { return nil }
    switch self {
    case .popular: return .popular(page: page.page + 1)
    case .recommended(let id, _): return .recommended(id: id, page: page.page + 1)
    }
  }
}

extension MovieApi {
  /// `movie/{id}`: one movie with its details (runtime, genres, tagline).
  struct Details: Endpoint {
    /// The movie.
    typealias Response = Movie
    /// The movie's id.
    var id: Int
    /// How the request uses a client's cache (the walkthrough's caching step varies it).
    var cachePolicy: HTTPCache.Policy = .useCache
    var path: String { "movie/\(id)" }

    /// These details asked for under `policy`.
    func cached(_ policy: HTTPCache.Policy) -> Details {
      var details = self
      details.cachePolicy = policy
      return details
    }
  }

  /// A poster image, by its path (`/abc.jpg`) on the image server's base URL.
  struct Poster: Endpoint {
    /// The image bytes (when sent; posters are downloaded to disk).
    typealias Response = Data
    /// The poster's path, as `Movie.posterPath` gives it.
    var posterPath: String
    var path: String { posterPath }
  }

  /// `movie/{id}/videos`: a movie's trailers, teasers and clips.
  struct Videos: Endpoint {
    /// The videos.
    typealias Response = VideoList
    /// The movie's id.
    var id: Int
    var path: String { "movie/\(id)/videos" }
  }

  /// The details of the movie `id`.
  static func details(id: Int) -> Details { Details(id: id) }

  /// The videos of the movie `id`.
  static func video(id: Int) -> Videos { Videos(id: id) }
}
