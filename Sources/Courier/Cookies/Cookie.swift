import Foundation

/// One cookie as a ``CookieJar`` keeps it (RFC 6265bis §5.7's storage model).
///
/// Its value is a credential: ``value`` gives it to code, but no description or dump of the
/// cookie, of its jar or of a configuration holding the jar shows it.
public struct Cookie: Sendable, Hashable, Codable {
  /// The cookie's name.
  public var name: String
  /// The cookie's value, as the server sent it (quotes included).
  public var value: String
  /// The host it was set for (``isHostOnly``), or the domain it and its subdomains share.
  public var domain: String
  /// The path it is sent under.
  public var path: String
  /// Whether it goes only to ``domain`` itself, not to its subdomains (no `Domain` attribute).
  public var isHostOnly: Bool
  /// Whether it goes only over `https` (`Secure`).
  public var isSecure: Bool
  /// `HttpOnly`: kept, for inspection; Courier has no scripts to hide it from.
  public var isHTTPOnly: Bool
  /// `SameSite` as sent (`Strict`, `Lax`, `None`), for inspection; an HTTP client sends no
  /// request on behalf of another site, so Courier applies no rule for it.
  public var sameSite: String?
  /// When it expires; `nil` for a session cookie (kept in memory only, until the jar goes).
  public var expires: Date?
  /// When it was first stored; a replacement keeps the first one's (it orders the header).
  public var created: Date

  /// Creates a cookie value, e.g. for a test; a jar stores what servers send.
  public init(
    name: String, value: String, domain: String, path: String = "/", isHostOnly: Bool = true,
    isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: String? = nil,
    expires: Date? = nil, created: Date = Date()
  ) {
    self.name = name
    self.value = value
    self.domain = domain
    self.path = path
    self.isHostOnly = isHostOnly
    self.isSecure = isSecure
    self.isHTTPOnly = isHTTPOnly
    self.sameSite = sameSite
    self.expires = expires
    self.created = created
  }

  /// Whether it outlives the jar's process (it has an expiry).
  public var isPersistent: Bool { expires != nil }

  /// Whether it is the same cookie as `other`: the same name, domain and path (a later one
  /// replaces it).
  func isSameCookie(as other: Cookie) -> Bool {
    name == other.name && domain == other.domain && path == other.path
  }

  /// Whether it goes with a request to `host`, `path`, over a secure scheme or not, at `now`.
  func matches(host: String, path requestPath: String, secure: Bool, at now: Date) -> Bool {
    if let expires, expires <= now { return false }
    if isSecure && !secure { return false }
    let hostMatches = isHostOnly ? host == domain : CookieRules.domainMatches(host, domain)
    return hostMatches && CookieRules.pathMatches(requestPath, path)
  }
}

extension Cookie: CustomStringConvertible, CustomReflectable {
  /// The cookie without its value, a credential: `Cookie(name: "session", value: <redacted>,
  /// domain: "example.com", path: "/")`, then its attributes that are set.
  public var description: String {
    var text =
      "Cookie(name: \"\(name)\", value: \(Redaction.placeholder), domain: \"\(domain)\", "
      + "path: \"\(path)\""
    if !isHostOnly { text += ", subdomains too" }
    if isSecure { text += ", Secure" }
    if isHTTPOnly { text += ", HttpOnly" }
    if let sameSite { text += ", SameSite=\(sameSite)" }
    if let expires { text += ", expires \(expires)" }
    return text + ")"
  }

  /// Every field, the value redacted: a dump (of the cookie, its jar, or a configuration
  /// holding the jar) shows no cookie's value.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "name": name, "value": Redaction.placeholder, "domain": domain, "path": path,
        "isHostOnly": isHostOnly, "isSecure": isSecure, "isHTTPOnly": isHTTPOnly,
        "sameSite": sameSite as Any, "expires": expires as Any, "created": created,
      ],
      displayStyle: .struct)
  }
}
