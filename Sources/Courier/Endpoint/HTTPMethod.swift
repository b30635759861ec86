/// An HTTP request method: an open set, so any token the server understands can be used.
///
/// ```swift
/// let method: HTTPMethod = .post
/// let custom = HTTPMethod(rawValue: "PROPFIND")
/// ```
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
  /// The method token as sent on the wire, e.g. `"GET"`.
  public let rawValue: String

  /// Creates a method from its token. Tokens are case-sensitive; standard ones are uppercase.
  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  /// Creates a method from a string literal.
  public init(stringLiteral value: String) {
    self.rawValue = value
  }

  /// `GET`: read a resource.
  public static let get: HTTPMethod = "GET"
  /// `POST`: create or submit.
  public static let post: HTTPMethod = "POST"
  /// `PUT`: replace a resource.
  public static let put: HTTPMethod = "PUT"
  /// `PATCH`: change part of a resource.
  public static let patch: HTTPMethod = "PATCH"
  /// `DELETE`: remove a resource.
  public static let delete: HTTPMethod = "DELETE"
  /// `HEAD`: like `GET` without a response body.
  public static let head: HTTPMethod = "HEAD"
  /// `OPTIONS`: ask what a resource supports.
  public static let options: HTTPMethod = "OPTIONS"

  /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2).
  public var isIdempotent: Bool {
    switch self {
    case .get, .head, .put, .delete, .options, "TRACE": true
    default: false
    }
  }
}

extension HTTPMethod: CustomStringConvertible {
  /// The method token.
  public var description: String { rawValue }
}
