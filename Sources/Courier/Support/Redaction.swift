import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Hides credentials in anything Courier prints: header values and query values whose
/// names say they hold a secret, and the user-info part of URLs.
enum Redaction {
  /// What a hidden value prints as.
  static let placeholder = "<redacted>"

  /// Parts of a header or query name (lowercased) that mark its value as a credential:
  /// `Authorization`, `Cookie`, `X-Api-Key`, `X-Goog-Api-Key`, `Private-Token`, `api_key`,
  /// `access_token`, `client_secret`, `password`, `sig`…
  private static let sensitiveParts = [
    "auth", "cookie", "token", "key", "secret", "password", "passwd", "session", "signature",
    "credential",
  ]

  /// Names that are credentials though they contain no sensitive part.
  private static let sensitiveNames: Set<String> = ["sig", "pwd", "code"]

  /// Whether a header or query item with this name carries a credential.
  static func isSensitive(name: String) -> Bool {
    let lowered = name.lowercased()
    return sensitiveNames.contains(lowered) || sensitiveParts.contains { lowered.contains($0) }
  }

  /// `value`, or the placeholder when `name` is a credential header.
  static func headerValue(_ value: String, name: String) -> String {
    isSensitive(name: name) ? placeholder : value
  }

  /// The URL as text with credential query values and any user-info replaced.
  static func url(_ url: URL?) -> String {
    guard let url else { return "(no URL)" }
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
      return placeholder
    }
    let hasUserInfo = components.user != nil || components.password != nil
    components.user = nil
    components.password = nil
    if let items = components.percentEncodedQueryItems, !items.isEmpty {
      components.percentEncodedQueryItems = items.map { item in
        let name = item.name.removingPercentEncoding ?? item.name
        guard item.value != nil, isSensitive(name: name) else { return item }
        return URLQueryItem(name: item.name, value: "REDACTED")
      }
    }
    var text = (components.string ?? "").replacingOccurrences(
      of: "=REDACTED", with: "=" + placeholder)
    if hasUserInfo, let range = text.range(of: "://") {
      text.insert(contentsOf: placeholder + "@", at: range.upperBound)
    }
    return text
  }
}
