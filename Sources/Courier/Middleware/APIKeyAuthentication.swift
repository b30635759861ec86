import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends an API key with every request, as a header or as a query item (TMDB's `api_key`).
///
/// ```swift
/// configuration.middleware = [APIKeyAuthentication(key: key, in: .query("api_key"))]
/// ```
///
/// Endpoints with ``RequestOptions/noAuthentication``, and requests to another origin than
/// the client's base URL, are sent without it. A header name or key that cannot be a header
/// (CR, LF, a space in the name) fails the request with
/// ``HTTPError/invalidRequest(reason:)`` before it is sent. Whatever its name, the key is marked as a
/// credential (``OutgoingRequest/markCredential(_:)``): redacted wherever Courier prints,
/// and never sent on to another origin by a redirect. No description or dump of the
/// middleware (or of a configuration holding it) shows the key.
public struct APIKeyAuthentication: Middleware, CustomStringConvertible, CustomReflectable {
  /// Where the key goes.
  public enum Placement: Sendable, Equatable {
    /// A header of this name.
    case header(String)
    /// A query item of this name.
    case query(String)
  }

  /// The key.
  public let key: String
  /// Where it goes.
  public let placement: Placement

  /// Sends `key` in `placement`.
  public init(key: String, in placement: Placement) {
    self.key = key
    self.placement = placement
  }

  /// Where the key goes, without the key: `APIKeyAuthentication(key: <redacted>, in: query
  /// "api_key")`.
  public var description: String {
    let (kind, name) =
      switch placement {
      case .header(let name): ("header", name)
      case .query(let name): ("query", name)
      }
    return "APIKeyAuthentication(key: \(Redaction.placeholder), in: \(kind) \"\(name)\")"
  }

  /// The key redacted and where it goes: a dump shows no key.
  public var customMirror: Mirror {
    Mirror(
      self, children: ["key": Redaction.placeholder, "placement": placement],
      displayStyle: .struct)
  }

  /// Adds the key to the request.
  public func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
    -> HTTPResponse
  {
    guard !request.options.contains(.noAuthentication), request.isToClientOrigin else {
      return try await next(request)
    }
    var request = request
    // Whatever the name, the key is a credential: redacted by the middleware inside this one
    // (logging) and in what comes back.
    let name: String
    switch placement {
    case .header(let header): name = header
    case .query(let item): name = item
    }
    request.markCredential(name)
    switch placement {
    case .header(let name):
      // Foundation drops a value with CR or LF without a word: refuse it (and a name that is
      // no header name) rather than send the request without its key.
      try HeaderValidation.validate([name: key])
      request.urlRequest.setValue(key, forHTTPHeaderField: name)
    case .query(let name):
      guard let url = request.url else { break }
      let base = url.absoluteString.split(
        separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
      let item = QueryEncoding().encode([name: key])
      request.urlRequest.url = URL(string: base + (base.contains("?") ? "&" : "?") + item) ?? url
    }
    let credentials = Credentials(names: [name.lowercased()], request: request.urlRequest)
    do throws(HTTPError) {
      var response = try await next(request)
      response.credentials = response.credentials.merging(credentials)
      return response
    } catch {
      throw credentials.applied(to: error)
    }
  }
}
