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

  /// Names that are credentials though they contain no sensitive part: OAuth's among them —
  /// an authorization `code`, a device flow's `device_code` (with the client's id, it fetches
  /// the token once the user approves), PKCE's `code_verifier`, and a signed JWT sent as an
  /// `assertion` or `client_assertion` (RFC 7521).
  private static let sensitiveNames: Set<String> = [
    "sig", "pwd", "code", "device_code", "code_verifier", "assertion", "client_assertion",
  ]

  /// Whether a header or query item with this name carries a credential: by Courier's
  /// rules, or because it is one of `extra` (lowercased names the user listed).
  static func isSensitive(name: String, extra: Set<String> = []) -> Bool {
    let lowered = name.lowercased()
    return sensitiveNames.contains(lowered) || extra.contains(lowered)
      || sensitiveParts.contains { lowered.contains($0) }
  }

  /// The credential values a request carries: its sensitive headers' values and its
  /// sensitive query items' values (decoded and as sent), each also without the scheme
  /// before it (`Bearer abc` → `abc`), and its URL's user info with the Basic token the
  /// transport makes of it, for scrubbing from any text.
  static func secrets(in request: URLRequest, extra: Set<String> = []) -> [String] {
    var secrets: [String] = []
    func add(_ value: String) {
      secrets.append(value)
      if let credential = value.split(separator: " ", maxSplits: 1).dropFirst().first {
        secrets.append(String(credential))  // "Bearer abc" → also "abc"
      }
    }
    for (name, value) in request.allHTTPHeaderFields ?? [:]
    where isSensitive(name: name, extra: extra) {
      add(value)
      if name.lowercased() == "cookie" {
        // "a=1; session=abc" → also each cookie's value, "abc".
        for pair in value.split(separator: ";") {
          if let equals = pair.firstIndex(of: "=") {
            secrets.append(String(pair[pair.index(after: equals)...]))
          }
        }
      }
    }
    if let url = request.url,
      let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
    {
      for item in components.percentEncodedQueryItems ?? [] {
        let name = item.name.removingPercentEncoding ?? item.name
        guard isSensitive(name: name, extra: extra), let value = item.value else { continue }
        secrets.append(value)
        if let decoded = value.removingPercentEncoding { add(decoded) }
      }
      if let password = components.password { secrets.append(password) }
      if let user = components.user { secrets.append(user) }
      // The libcurl transports send the user info as Basic credentials: their token too.
      // (URLSession on Apple platforms would use it only to answer a challenge, which
      // Courier turns down.)
      secrets += loginSecrets(user: components.user ?? "", password: components.password)
    }
    return forms(of: secrets)
  }

  /// `secrets` (those of at least 3 characters) in every form a server may echo one in,
  /// longest first: as it is; percent-encoded, as a URL, a form or a field carries it (every
  /// character but letters, digits and `-._~` as `%XX`, its hex in upper and in lower case:
  /// a base64 token's `/`, `+` and `=` as `%2F`, `%2B`, `%3D`); and with each `/` escaped as
  /// JSON may write it (`\/`, as Foundation's `JSONEncoder` and PHP's `json_encode` do).
  static func forms(of secrets: [String]) -> [String] {
    var forms = Set<String>()
    for secret in secrets where secret.count >= 3 {
      forms.insert(secret)
      if let encoded = secret.addingPercentEncoding(withAllowedCharacters: unreserved),
        encoded != secret
      {
        forms.insert(encoded)
        forms.insert(lowercasingHex(encoded))
      }
      if secret.contains("/") { forms.insert(secret.replacingOccurrences(of: "/", with: "\\/")) }
    }
    return forms.sorted { $0.count > $1.count || ($0.count == $1.count && $0 < $1) }
  }

  /// The characters RFC 3986 leaves unencoded everywhere.
  private static let unreserved = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

  /// Percent-encoded `text` with the hex digits of each `%XX` in lower case.
  private static func lowercasingHex(_ text: String) -> String {
    var result = ""
    var hexLeft = 0
    for character in text {
      if character == "%" {
        hexLeft = 2
        result.append(character)
      } else if hexLeft > 0 {
        hexLeft -= 1
        result += character.lowercased()
      } else {
        result.append(character)
      }
    }
    return result
  }

  /// `text` with every occurrence of each secret replaced by the placeholder.
  static func scrub(_ text: String, secrets: [String]) -> String {
    secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: placeholder) }
  }

  /// `value`, or the placeholder when `name` is a credential header; a field that holds
  /// URLs (``urlRanges(inField:value:)``) shows each URL redacted.
  static func headerValue(_ value: String, name: String, extra: Set<String> = []) -> String {
    if isSensitive(name: name, extra: extra) { return placeholder }
    var text = value
    for range in urlRanges(inField: name, value: value).reversed() {
      let shown = URL(string: String(value[range])).map { url($0, extra: extra) }
      text.replaceSubrange(range, with: shown ?? placeholder)
    }
    return text
  }

  /// Where the URLs a header field holds are in its value: the whole of a `Location` or
  /// `Content-Location`, and each `<URI-Reference>` of a `Link` (RFC 8288), where a paging
  /// API may name a presigned next page; none in another field.
  static func urlRanges(inField name: String, value: String) -> [Range<String.Index>] {
    switch name.lowercased() {
    case "location", "content-location":
      return [value.startIndex..<value.endIndex]
    case "link":
      var ranges: [Range<String.Index>] = []
      var rest = value[...]
      while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
        ranges.append(value.index(after: open)..<close)
        rest = rest[value.index(after: close)...]
      }
      return ranges
    default:
      return []
    }
  }

  /// The URL as text with credential query values and any user-info replaced.
  static func url(_ url: URL?, extra: Set<String> = []) -> String {
    guard let url else { return "(no URL)" }
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
      return placeholder
    }
    let hasUserInfo = components.user != nil || components.password != nil
    components.user = nil
    components.password = nil
    redactParameters(of: &components, extra: extra)
    var text = (components.string ?? "").replacingOccurrences(
      of: "=REDACTED", with: "=" + placeholder)
    if hasUserInfo, let range = text.range(of: "://") {
      text.insert(contentsOf: placeholder + "@", at: range.upperBound)
    }
    return text
  }

  /// Replaces with `REDACTED` (a URL cannot hold the placeholder) the values of the
  /// credential parameters of `components`: its query items, those of a fragment written
  /// as a query — OAuth's implicit flow redirects to `…#access_token=…&state=…`, and a
  /// fragment of a redirect's `Location` stays on the URL it leads to — and a path
  /// segment's parameters (`/app;jsessionid=…`, where a servlet container puts its session
  /// when cookies are off, and redirects to it).
  static func redactParameters(of components: inout URLComponents, extra: Set<String>) {
    if let items = components.percentEncodedQueryItems, !items.isEmpty {
      components.percentEncodedQueryItems = items.map { item in
        let name = item.name.removingPercentEncoding ?? item.name
        guard item.value != nil, isSensitive(name: name, extra: extra) else { return item }
        return URLQueryItem(name: item.name, value: "REDACTED")
      }
    }
    if let fragment = components.percentEncodedFragment, fragment.contains("=") {
      components.percentEncodedFragment = fragment.split(
        separator: "&", omittingEmptySubsequences: false
      ).map { redactingParameter($0, extra: extra) }.joined(separator: "&")
    }
    let path = components.percentEncodedPath
    if path.contains(";") {
      components.percentEncodedPath = path.split(separator: "/", omittingEmptySubsequences: false)
        .map { segment in
          let pieces = segment.split(separator: ";", omittingEmptySubsequences: false)
          return
            ([String(pieces[0])] + pieces.dropFirst().map { redactingParameter($0, extra: extra) })
            .joined(separator: ";")
        }.joined(separator: "/")
    }
  }

  /// `name=value`, its value `REDACTED` when the name is a credential's.
  private static func redactingParameter(_ pair: Substring, extra: Set<String>) -> String {
    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
    let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
    guard parts.count == 2, isSensitive(name: name, extra: extra) else { return String(pair) }
    return "\(parts[0])=REDACTED"
  }

  /// A body as text for printing, with the values of credential fields redacted in JSON
  /// objects, form bodies and multipart forms (`password`, `client_secret`,
  /// `access_token`…); `nil` when it is not UTF-8 text. JSON with such a field is written
  /// anew (its keys sorted); JSON without one is the text as it came.
  static func body(_ data: Data, extra: Set<String> = []) -> String? {
    hiding(data, extra: extra).text
  }

  /// The values of a body's credential fields, which ``body(_:extra:)`` hides: secrets to
  /// scrub wherever a server echoes them (a validation error quoting the password it got
  /// under another name, as FastAPI's `"input"` does), as typed and percent-decoded.
  static func fieldSecrets(in data: Data, extra: Set<String> = []) -> [String] {
    hiding(data, extra: extra).hidden
  }

  /// ``body(_:extra:)``'s text, and the values it hid.
  private static func hiding(_ data: Data, extra: Set<String>) -> (text: String?, hidden: [String])
  {
    var hidden: [String] = []
    if let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
      json is [String: Any] || json is [Any]
    {
      let fields = redactingFields(json, extra: extra, hidden: &hidden)
      if hidden.isEmpty { return (String(data: data, encoding: .utf8), []) }
      if let redacted = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
      {
        return (String(decoding: redacted, as: UTF8.self), hidden)
      }
    }
    guard let text = String(data: data, encoding: .utf8) else { return (nil, []) }
    if let form = multipart(text, extra: extra, hidden: &hidden) { return (form, hidden) }
    guard looksLikeForm(text) else { return (text, []) }
    let form = text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
      guard parts.count == 2, isSensitive(name: name, extra: extra) else { return String(pair) }
      let value = String(parts[1])
      hidden.append(value)
      let decoded = value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
      if let decoded, decoded != value { hidden.append(decoded) }
      return "\(parts[0])=\(placeholder)"
    }.joined(separator: "&")
    return (form, hidden)
  }

  /// Whether `text` reads as a form body, `name=value&…`: it has an `=`, no `{`, and no field
  /// name with a space in it. A value may have one, and the whole a line break at its end, as
  /// a form written by hand does (`scope=openid profile`); prose with an `=` has a name with
  /// spaces (`the key = …`) and is not one.
  private static func looksLikeForm(_ text: String) -> Bool {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard trimmed.contains("="), !trimmed.contains("{") else { return false }
    return trimmed.split(separator: "&", omittingEmptySubsequences: false).allSatisfy { pair in
      !pair.prefix { $0 != "=" }.contains(where: \.isWhitespace)
    }
  }

  /// A `multipart/form-data` body (RFC 7578) with the content of each part whose name is a
  /// credential replaced by the placeholder, or `nil` when `text` is not one: it starts with
  /// its delimiter, `--boundary`, on a line of its own, which ends every part (a boundary
  /// never occurs in the content).
  private static func multipart(_ text: String, extra: Set<String>, hidden: inout [String])
    -> String?
  {
    guard text.hasPrefix("--"), let lineEnd = text.range(of: "\r\n") else { return nil }
    let delimiter = String(text[..<lineEnd.lowerBound])
    var parts = text.components(separatedBy: delimiter)
    guard parts.count > 2, parts[0].isEmpty, parts[parts.count - 1].hasPrefix("--") else {
      return nil
    }
    for index in 1..<(parts.count - 1) {
      guard let headEnd = parts[index].range(of: "\r\n\r\n"),
        let name = partName(parts[index][..<headEnd.lowerBound]),
        isSensitive(name: name.removingPercentEncoding ?? name, extra: extra)
      else { continue }
      let content = parts[index][headEnd.upperBound...]
      hidden.append(String(content.hasSuffix("\r\n") ? content.dropLast(2) : content))
      parts[index] = parts[index][..<headEnd.upperBound] + placeholder + "\r\n"
    }
    return parts.joined(separator: delimiter)
  }

  /// The `name` parameter of a part's `Content-Disposition: form-data` field.
  private static func partName(_ head: Substring) -> String? {
    for line in head.split(separator: "\r\n")
    where line.lowercased().hasPrefix("content-disposition:") {
      for parameter in line.split(separator: ";").dropFirst() {
        let pair = parameter.split(separator: "=", maxSplits: 1)
        guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "name"
        else { continue }
        return pair[1].trimmingCharacters(in: .whitespaces)
          .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
      }
    }
    return nil
  }

  /// `value` with each credential field's value redacted, and added to `hidden`: a field
  /// whose name is a credential's, and each value of a list under such a name (an object in
  /// it has fields of its own, which their names decide).
  private static func redactingFields(
    _ value: Any, extra: Set<String>, hidden: inout [String], listed: Bool = false
  ) -> Any {
    if let object = value as? [String: Any] {
      var redacted: [String: Any] = [:]
      for (key, field) in object {
        let sensitive = isSensitive(name: key, extra: extra)
        redacted[key] = redactingFields(field, extra: extra, hidden: &hidden, listed: sensitive)
      }
      return redacted
    }
    if let array = value as? [Any] {
      return array.map { redactingFields($0, extra: extra, hidden: &hidden, listed: listed) }
    }
    guard listed else { return value }
    if !(value is NSNull) { hidden.append(value as? String ?? "\(value)") }
    return placeholder
  }
}
