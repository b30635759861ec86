/// A `GET` request that pages by RFC 8288 `Link` headers (`rel="next"`), as GitHub's API
/// does.
///
/// ```swift
/// let repos = LinkPagedRequest<[Repo]>(path: "orgs/swiftlang/repos", query: ["per_page": 100])
/// for try await page in client.pages(repos) { … }
/// ```
///
/// Only links to the same origin (scheme, host and port) as the page's request are followed,
/// so a `Link` header cannot send the client's credentials elsewhere; a cross-origin next
/// link ends the paging.
public struct LinkPagedRequest<Response: Sendable>: PagedEndpoint {
  /// The path of the first page, or the absolute URL of a later one.
  public var path: String
  /// The query of the first page (later pages' URLs carry their own).
  public var query: Query
  /// The request's own headers.
  public var headers: HTTPHeaders
  /// The timeout per page, or `nil` for the client's.
  public var timeout: Duration?

  /// Creates the request for the first page.
  public init(
    path: String, query: Query = Query(), headers: HTTPHeaders = HTTPHeaders(),
    timeout: Duration? = nil
  ) {
    self.path = path
    self.query = query
    self.headers = headers
    self.timeout = timeout
  }

  /// The same request for the `rel="next"` link (without its fragment, which is never sent),
  /// or `nil` when there is none or it leaves the origin of the page's request.
  public func nextPage(after page: Response, response: HTTPResponse) -> Self? {
    // Compared with the URL that was asked for, not the one that answered: a redirect to
    // another origin must not make that origin's links look like home.
    guard let next = response.link(rel: "next"),
      URLOrigin.same(response.requestURL ?? response.url, next)
    else { return nil }
    var request = self
    // A fragment is the client's own, never sent: the page is the URL without it.
    request.path = String(
      next.absoluteString.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
    request.query = Query()
    return request
  }
}
