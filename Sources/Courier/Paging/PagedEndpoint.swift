/// An endpoint that answers one page of a list, and knows which endpoint answers the next.
///
/// Each paging scheme is a line or two in ``nextPage(after:response:)``:
///
/// ```swift
/// // Page numbers with a total in the body (TMDB):
/// func nextPage(after page: MoviePage, response: HTTPResponse) -> MovieApi? {
///   page.page < page.totalPages ? .popular(page: page.page + 1) : nil
/// }
/// // A cursor in the body:
/// func nextPage(after page: EventPage, response: HTTPResponse) -> Events? {
///   page.nextCursor.map { Events(cursor: $0) }
/// }
/// // An RFC 8288 Link header (GitHub) — or use LinkPagedRequest, which does this:
/// func nextPage(after page: [Repo], response: HTTPResponse) -> Repos? {
///   response.link(rel: "next").map { Repos(url: $0) }
/// }
/// ```
///
/// Then `for try await page in client.pages(first) { … }` fetches page after page.
public protocol PagedEndpoint: Endpoint {
  /// The endpoint for the page after `page`, or `nil` when it was the last page.
  /// `response` carries the status, headers (`Link`) and URL that answered `page`.
  func nextPage(after page: Response, response: HTTPResponse) -> Self?

  /// Renamed ``nextPage(after:response:)``: an endpoint of 0.1 that implements only this
  /// spelling keeps paging until 1.1, through the default of the new one. (Until then an
  /// endpoint that implements neither compiles too, warned that a deprecated default stands
  /// in, and answers one page; from 1.1 it does not compile.)
  @available(*, deprecated, renamed: "nextPage(after:response:)")
  func nextPage(after page: Response, metadata: HTTPResponse) -> Self?
}

extension PagedEndpoint {
  /// Forwards to the 0.1 spelling, ``nextPage(after:metadata:)``, for endpoints that implement
  /// only that one (until 1.1). Implement ``nextPage(after:response:)`` instead.
  @available(*, deprecated, message: "implement nextPage(after:response:)")
  public func nextPage(after page: Response, response: HTTPResponse) -> Self? {
    nextPage(after: page, metadata: response)
  }

  /// The 0.1 spelling's default: no next page.
  @available(*, deprecated, renamed: "nextPage(after:response:)")
  public func nextPage(after page: Response, metadata: HTTPResponse) -> Self? {
    nil
  }
}
