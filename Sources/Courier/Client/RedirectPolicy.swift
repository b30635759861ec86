/// Whether and how far ``HTTPClient`` follows redirects (``HTTPClient/Configuration/redirects``).
/// The client follows them itself, above the transport, by one decision whatever the
/// transport: a transport hands every response back as it came, a 3xx included. (A
/// ``BackgroundSession``'s transfers are the system's: it follows their redirects itself.)
///
/// Whatever the policy, a redirect to another origin (scheme, host or port) never carries
/// the original request's `Authorization`, `Proxy-Authorization` or `Cookie` headers, and a
/// 307 or 308 redirect re-sends the request body (FoundationNetworking would drop it). A
/// redirect's own body is drained, at most 64 KiB of it and for at most 1 s, and cancelled
/// past either (over HTTP/1.1 its connection is closed): it is never the answer, so the size limit does not apply
/// to it, and a body that trickles does not hold the redirect until the idle timeout
/// (URLSession on Linux reads it whole itself first, within the deadline). `Location` fields that differ fail with
/// `HTTPError.transport(URLError(.badServerResponse))`, and nothing more is sent.
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
