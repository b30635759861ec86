import Courier

/// The fixture page as a paged endpoint: page `page` of `lastPage`, always the same JSON
/// (nginx serves `page.json` whatever the query), so that paging runs as long as asked.
public struct PopularMovies: PagedEndpoint {
  /// The decoded page.
  public typealias Response = MoviePage

  /// This page's number, sent as `?page=`.
  public let page: Int
  /// The number of the last page.
  public let lastPage: Int
  /// The path, relative to the client's base URL.
  public let path: String

  /// Page `page` of `lastPage`, at `path`.
  public init(page: Int = 1, lastPage: Int, path: String = "page.json") {
    self.page = page
    self.lastPage = lastPage
    self.path = path
  }

  /// `page=N`.
  public var query: Query { ["page": page] }

  /// The next page, until `lastPage`.
  public func nextPage(after movies: MoviePage, response: HTTPResponse) -> PopularMovies? {
    page < lastPage ? PopularMovies(page: page + 1, lastPage: lastPage, path: path) : nil
  }
}
