import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Hides credentials in anything Courier prints: header values and query values
/// whose names say they hold a secret.
enum Redaction {
  /// What a hidden value prints as.
  static let placeholder = "<redacted>"

  /// Header names (lowercased) whose values are credentials.
  static let sensitiveHeaders: Set<String> = [
    "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key",
    "x-auth-token",
  ]

  /// Query item names (lowercased) whose values are credentials.
  static let sensitiveQueryNames: Set<String> = [
    "api_key", "apikey", "api-key", "key", "token", "access_token", "refresh_token",
    "client_secret", "secret", "password", "signature", "sig",
  ]

  /// `value`, or the placeholder when `name` is a credential header.
  static func headerValue(_ value: String, name: String) -> String {
    sensitiveHeaders.contains(name.lowercased()) ? placeholder : value
  }

  /// The URL as text with the values of credential query items replaced, and any
  /// user:password part removed.
  static func url(_ url: URL?) -> String {
    guard let url else { return "(no URL)" }
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
      return url.absoluteString
    }
    if components.password != nil {
      components.password = placeholder
    }
    if let items = components.percentEncodedQueryItems, !items.isEmpty {
      components.percentEncodedQueryItems = items.map { item in
        let name = item.name.removingPercentEncoding ?? item.name
        guard sensitiveQueryNames.contains(name.lowercased()), item.value != nil else {
          return item
        }
        return URLQueryItem(name: item.name, value: "REDACTED")
      }
    }
    let text = components.string ?? url.absoluteString
    return text.replacingOccurrences(of: "=REDACTED", with: "=" + placeholder)
  }
}
