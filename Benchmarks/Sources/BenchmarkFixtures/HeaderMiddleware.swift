import Courier

/// A middleware that sets one header and passes the request on: the cheapest useful
/// middleware, so that a pipeline with several of them measures the chain itself.
public struct HeaderMiddleware: Middleware {
  /// The header's name.
  public let name: String
  /// The header's value.
  public let value: String

  /// A middleware setting `name` to `value` on every request.
  public init(name: String, value: String) {
    self.name = name
    self.value = value
  }

  /// Sets the header and calls the next middleware.
  public func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
    -> HTTPResponse
  {
    var request = request
    request.headers[name] = value
    return try await next(request)
  }

  /// `count` middlewares, each setting a header of its own (`X-Benchmark-1`, …).
  public static func chain(of count: Int) -> [any Middleware] {
    (0..<count).map { HeaderMiddleware(name: "X-Benchmark-\($0 + 1)", value: "\($0 + 1)") }
  }
}
