import Foundation

/// The matching rules of RFC 6265bis §5.1: domains, paths, the default path.
enum CookieRules {
  /// Whether `host` domain-matches `domain`: the same, or a name under it (never an IP
  /// address under a suffix).
  static func domainMatches(_ host: String, _ domain: String) -> Bool {
    if host == domain { return true }
    guard host.hasSuffix("." + domain), !isIPAddress(host) else { return false }
    return true
  }

  /// Whether `requestPath` path-matches `cookiePath` (§5.1.4): the same, or under it at a
  /// `/` boundary.
  static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
    if requestPath == cookiePath { return true }
    guard requestPath.hasPrefix(cookiePath) else { return false }
    return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).first == "/"
  }

  /// The path a cookie without a usable `Path` gets from the URL that set it (§5.1.4): the
  /// directory of the URL's path.
  static func defaultPath(of url: URL) -> String {
    let path = requestPath(of: url)
    guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex
    else { return "/" }
    return String(path[..<slash])
  }

  /// The URL's path as sent, percent-escapes kept; `/` when empty.
  static func requestPath(of url: URL) -> String {
    let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
    return path.isEmpty ? "/" : path
  }

  /// The URL's host, lowercased, without the brackets of an IPv6 literal.
  static func host(of url: URL) -> String? {
    guard var host = url.host?.lowercased(), !host.isEmpty else { return nil }
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    return host
  }

  /// Whether cookies set or sent over `url` count as secure: `https`, and `wss` (a
  /// WebSocket's upgrade over TLS).
  static func isSecure(_ url: URL) -> Bool {
    let scheme = url.scheme?.lowercased()
    return scheme == "https" || scheme == "wss"
  }

  static func isIPAddress(_ host: String) -> Bool {
    if host.contains(":") { return true }
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
  }
}
