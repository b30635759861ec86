import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A step that every request of a client passes through, on its way out and back: an onion
/// of `Sendable` values, in the order `HTTPClient.Configuration.middleware` lists them (the
/// first is outermost).
///
/// A middleware may change the request, answer it itself without calling `next`, call
/// `next` more than once (to retry), or change the response or error on the way back:
///
/// ```swift
/// struct UserAgent: Middleware {
///   func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
///     -> HTTPResponse
///   {
///     var request = request
///     request.headers["User-Agent"] = "movies/1.0"
///     return try await next(request)
///   }
/// }
/// ```
///
/// Inside `next` come request sharing, the concurrency limits, the timeout (per attempt)
/// and the transport. What a middleware sets is held to the rules an endpoint's is, else the
/// request fails with ``HTTPError/invalidRequest(reason:)`` and is not sent: a method and
/// header names are tokens, a header value holds no CR, LF or other control character
/// (however it was set, `allHTTPHeaderFields` included), and a `Content-Length` or
/// `Transfer-Encoding` is taken off when it frames the body as Courier will (its length, or
/// `chunked`).
public protocol Middleware: Sendable {
  /// Handles `request`, usually by passing it (changed or not) to `next`.
  func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
    -> HTTPResponse
}

/// The rest of the chain after a middleware: call it to send the request on.
public struct MiddlewareNext: Sendable {
  private let middleware: [any Middleware]
  private let index: Int
  private let send: @Sendable (OutgoingRequest) async throws(HTTPError) -> HTTPResponse

  init(
    _ middleware: [any Middleware], from index: Int = 0,
    send: @escaping @Sendable (OutgoingRequest) async throws(HTTPError) -> HTTPResponse
  ) {
    self.middleware = middleware
    self.index = index
    self.send = send
  }

  /// Sends `request` through the rest of the chain and returns its response.
  public func callAsFunction(_ request: OutgoingRequest) async throws(HTTPError) -> HTTPResponse {
    guard index < middleware.count else { return try await send(request) }
    let rest = MiddlewareNext(middleware, from: index + 1, send: send)
    return try await middleware[index].intercept(request, next: rest)
  }
}
