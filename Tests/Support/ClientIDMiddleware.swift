import Courier

/// Sets a client ID on every request, whatever its origin, under a name Courier would not take
/// for a credential (`X-Client`), and marks it as one, as a third-party middleware would.
public struct ClientIDMiddleware: Middleware {
  /// The ID's value: a secret that must never reach another origin.
  public static let value = "clientid-SECRET"

  /// The middleware.
  public init() {}

  /// Sets and marks `X-Client` on `request`, then sends it on.
  public func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
    -> HTTPResponse
  {
    var request = request
    request.urlRequest.setValue(Self.value, forHTTPHeaderField: "X-Client")
    request.markCredential("X-Client")
    return try await next(request)
  }
}
