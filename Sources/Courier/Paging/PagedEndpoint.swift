/// An endpoint that answers one page of a list, and knows which endpoint answers the next.
///
/// Each paging scheme is a line or two in ``nextPage(after:metadata:)``:
///
/// ```swift
/// // Page numbers with a total in the body (TMDB):
/// func nextPage(after page: MoviePage, metadata: HTTPResponse) -> MovieApi? {
///   page.page < page.totalPages ? .popular(page: page.page + 1) : nil
/// }
/// // A cursor in the body:
/// func nextPage(after page: EventPage, metadata: HTTPResponse) -> Events? {
///   page.nextCursor.map { Events(cursor: $0) }
/// }
/// // An RFC 8288 Link header (GitHub) — or use LinkPagedRequest, which does this:
/// func nextPage(after page: [Repo], metadata: HTTPResponse) -> Repos? {
///   metadata.link(rel: "next").map { Repos(url: $0) }
/// }
/// ```
///
/// Then `for try await page in client.pages(first) { … }` fetches page after page.
public protocol PagedEndpoint: Endpoint {
  /// The endpoint for the page after `response`, or `nil` when it was the last page.
  /// `metadata` carries the status, headers (`Link`) and URL of the page just fetched.
  func nextPage(after response: Response, metadata: HTTPResponse) -> Self?
}
