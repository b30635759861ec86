import Foundation

/// An endpoint as a value, for one-off calls and for APIs whose calls answer different
/// types.
///
/// ```swift
/// let movie = try await client.send(Request<Movie>(path: "movie/550"))
/// let created = try await client.send(
///   Request<Rating>(method: .post, path: "movie/550/rating", body: .json(["value": 8.5])))
/// ```
public struct Request<Response: Sendable>: Endpoint {
  /// The path or absolute URL.
  public var path: String
  /// The method.
  public var method: HTTPMethod
  /// The query items.
  public var query: Query
  /// The request's own headers.
  public var headers: HTTPHeaders
  /// The body, if any.
  public var body: RequestBody?
  /// The timeout for this request, or `nil` for the client's.
  public var timeout: Duration?
  /// The status codes that count as success, or `nil` for the client's.
  public var acceptableStatusCodes: StatusCodes?
  /// Switches for middleware.
  public var options: RequestOptions
  /// How the request uses the client's ``HTTPCache``.
  public var cachePolicy: HTTPCache.Policy

  /// Creates a request. Only `path` is required.
  public init(
    method: HTTPMethod = .get,
    path: String,
    query: Query = Query(),
    headers: HTTPHeaders = HTTPHeaders(),
    body: RequestBody? = nil,
    timeout: Duration? = nil,
    acceptableStatusCodes: StatusCodes? = nil,
    options: RequestOptions = [],
    cachePolicy: HTTPCache.Policy = .useCache
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.body = body
    self.timeout = timeout
    self.acceptableStatusCodes = acceptableStatusCodes
    self.options = options
    self.cachePolicy = cachePolicy
  }
}
