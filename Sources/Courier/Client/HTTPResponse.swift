import Foundation

/// A response as received: status, headers, body bytes and the URL that answered.
public struct HTTPResponse: Sendable, Equatable {
  /// The status code, e.g. `200`.
  public var status: Int
  /// The response headers.
  public var headers: HTTPHeaders
  /// The body bytes (decoded from gzip or deflate when the server compressed them).
  public var body: Data
  /// The URL that answered, after any redirects.
  public var url: URL?
  /// The body as it arrives, for a request whose caller reads it that way (``HTTPClient/bytes(_:options:)``,
  /// ``HTTPClient/events(_:reconnection:options:)``); `nil` when the body is in ``body``
  /// (collected, or the start of an error's) or went to a file.
  ///
  /// A middleware sees it as soon as the head has arrived, before the body: it may wrap it
  /// (see ``TransportResponseBody/makeStream(bufferSize:onStop:)``), or replace it with a body
  /// in ``body`` (set this to `nil` then); the caller reads what the middleware returns. The
  /// request holds its concurrency permits, and the observer hears of its end, once the
  /// caller has read the body or let it go. A middleware that keeps the response keeps the
  /// transfer going. Not part of equality.
  public var bodyStream: TransportResponseBody?
  /// The trailer fields that came after the body (a chunked HTTP/1.1 or an HTTP/2 response
  /// may send them: a checksum, a final status), for a body read whole; empty when there
  /// were none or the transport cannot read them (only ``CurlTransport`` does; see
  /// ``TransportResponseBody/trailers()`` for a streamed body). Not part of equality.
  public var trailers = HTTPHeaders()
  /// Which attempt answered, from 1 (set by ``RetryPolicy``).
  public var attempt = 1
  /// The URL that was requested, before any redirects (set by ``HTTPClient``).
  public var requestURL: URL?
  /// Whether the response came from the client's ``HTTPCache``, and how: a fresh
  /// ``HTTPCache/Status/hit``, a ``HTTPCache/Status/revalidated`` stored response, or from
  /// the server (``HTTPCache/Status/miss``, or ``HTTPCache/Status/notUsed`` when no cache
  /// was consulted). Not part of equality.
  public var cacheStatus: HTTPCache.Status = .notUsed
  /// What counts as a credential in the request that was answered, and that request as
  /// sent: its descriptions redact and scrub them. Not part of equality.
  var credentials = Credentials()
  /// Whether the client's redirect loop followed a redirect to get here: the response
  /// answers another URL than the one asked for (``HTTPCache`` stores only what answered
  /// that URL). Set by the loop itself, not read from ``url``, which a platform's URL
  /// loading may spell otherwise (a host lowercased, a `/` added to an empty path).
  var redirected = false
  /// The size limit the body passed, when ``body`` is only the start of it: an error
  /// answer's, kept for the error. Such an incomplete response is never stored
  /// (``HTTPCache``; RFC 9111 §3.3), nor decoded for a caller that accepts its status (one
  /// that shared the request): that caller gets `responseTooLarge`.
  var bodyCutPast: Int?

  /// A response with this status, headers, body and URL (a transport's answer, or a test's).
  public init(
    status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data(), url: URL? = nil
  ) {
    self.status = status
    self.headers = headers
    self.body = body
    self.url = url
  }

  /// Responses are equal when status, headers, body, URL, attempt and requested URL are
  /// (trailers, the cache status and what counts as a credential are not compared).
  public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
    lhs.status == rhs.status && lhs.headers == rhs.headers && lhs.body == rhs.body
      && lhs.url == rhs.url && lhs.attempt == rhs.attempt && lhs.requestURL == rhs.requestURL
  }

  /// Whether the status is in `200..<300`.
  public var isSuccess: Bool { (200..<300).contains(status) }

  /// The body decoded as JSON into `type` — for example an API's error payload.
  public func decode<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder = JSONDecoder())
    throws(HTTPError) -> T
  {
    do {
      return try decoder.decode(type, from: body)
    } catch {
      throw .decodingFailed(reason: DecodingFailure.describe(error, as: T.self), response: self)
    }
  }
}
