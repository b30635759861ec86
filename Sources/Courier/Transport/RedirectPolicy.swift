/// Whether and how far a transport follows redirects. Every transport of Courier's (and
/// the stub) follows them by the same decision: see
/// ``following(_:credentialNames:cookies:sendOnce:)``.
///
/// Whatever the policy, a redirect to another origin (scheme, host or port) never carries
/// the original request's `Authorization`, `Proxy-Authorization` or `Cookie` headers, and a
/// 307 or 308 redirect re-sends the request body (FoundationNetworking would drop it).
public enum RedirectPolicy: Sendable, Equatable {
  /// Follow up to `maximum` redirects; one more fails with
  /// `HTTPError.transport(URLError(.httpTooManyRedirects))`.
  case follow(maximum: Int)
  /// Never follow: the 3xx response is the answer (and, outside the acceptable status codes,
  /// an ``HTTPError/unacceptableStatus(_:)``).
  case never

  /// Follow up to 10 redirects.
  public static let `default` = RedirectPolicy.follow(maximum: 10)
}
