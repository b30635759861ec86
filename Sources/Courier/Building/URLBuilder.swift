import Foundation

/// Joins a base URL, an endpoint path and an encoded query into one URL, rejecting what
/// cannot form a URL with a reason that names the problem.
enum URLBuilder {
  /// `base` + `path` + `query`, where `query` is already percent-encoded.
  ///
  /// The path is appended to the base URL's path whether or not either has a slash at the
  /// joint (`https://api.example/3` + `movie/1` → `https://api.example/3/movie/1`). An
  /// absolute `http(s)` URL as `path` replaces the base URL. A `?` in the path starts
  /// query items that come before `query`'s; the base URL's own query items come first.
  static func url(base: URL, path: String, query: String) throws(HTTPError) -> URL {
    try url(base: Base(base), path: path, query: query, redacting: [])
  }

  /// A base URL split once into its text and its query, for building many URLs on it.
  struct Base: Sendable {
    let parts: Result<(text: String, query: String), HTTPError>

    init(_ url: URL) {
      parts = Result { () throws(HTTPError) in try URLBuilder.split(base: url) }
    }
  }

  /// `base` + `path` + `query`, as ``url(base:path:query:)``, with the base already split;
  /// a refused path is shown in the error with its credentials redacted (Courier's names and
  /// `extra`, lowercased): ``shown(_:redacting:)``.
  static func url(base: Base, path: String, query: String, redacting extra: Set<String>)
    throws(HTTPError) -> URL
  {
    try validate(path: path, redacting: extra)
    let (pathPart, pathQuery) = split(path, at: "?")
    let encodedPath = PercentEncoding.encode(pathPart) { isPathByte($0) }
    let encodedPathQuery = pathQuery.map { PercentEncoding.encode($0) { isQueryByte($0) } }

    var text: String
    var queries: [String] = []
    if let scheme = scheme(of: pathPart) {
      guard scheme == "http" || scheme == "https" else {
        throw .invalidRequest(
          reason: "the path '\(shown(path, redacting: extra))' has scheme '\(scheme)'; only http "
            + "and https are supported")
      }
      text = lowercasingScheme(encodedPath, scheme)
    } else {
      let (baseText, baseQuery) = try base.parts.get()
      queries.append(baseQuery)
      text = join(baseText, encodedPath)
    }
    queries.append(encodedPathQuery ?? "")
    queries.append(query)
    let fullQuery = queries.filter { !$0.isEmpty }.joined(separator: "&")
    if !fullQuery.isEmpty {
      text += "?" + fullQuery
    }
    guard let url = URL(string: text), url.host != nil else {
      throw .invalidRequest(
        reason: "the path '\(shown(path, redacting: extra))' does not form a valid URL with the "
          + "base URL")
    }
    return url
  }

  private static func validate(path: String, redacting extra: Set<String>) throws(HTTPError) {
    for byte in path.utf8 where byte < 0x20 || byte == 0x7F {
      if byte == PathSegment.emptyMarker {
        throw .invalidRequest(
          reason: "a \\(segment:) value in the path is empty: an empty segment ('a//b' or a "
            + "trailing '/') names another resource")
      }
      let what = byte == 0x0D || byte == 0x0A ? "CR or LF" : "a control character"
      throw .invalidRequest(reason: "the path contains \(what)")
    }
    if path.utf8.contains(UInt8(ascii: "#")) {
      throw .invalidRequest(
        reason: "the path '\(shown(path, redacting: extra))' contains '#': a fragment is never "
          + "sent to the server")
    }
    let pathPart = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
    if pathPart.split(separator: "/").contains(where: isDotSegment) {
      throw .invalidRequest(
        reason: "the path '\(shown(path, redacting: extra))' has a '.' or '..' segment (%2E is "
          + "a '.' to servers), which could leave the base URL's path; interpolate user input "
          + "with \\(segment:), which refuses '.' and '..' values too")
    }
    guard PercentEncoding.hasValidEscapes(path) else {
      throw .invalidRequest(
        reason:
          "the path '\(shown(path, redacting: extra))' has a '%' that does not start a %XX escape "
          + "(write %25 for a literal %)"
      )
    }
  }

  /// Whether `segment` is `.` or `..`, also when a dot is written `%2E` (or `%2e`): RFC 3986
  /// §6.2.2 makes them the same, and servers that resolve dot segments (nginx, Go's ServeMux,
  /// WHATWG URL parsers) resolve those too.
  private static func isDotSegment(_ segment: Substring) -> Bool {
    guard segment.utf8.count <= 6 else { return false }
    let dots = segment.lowercased().replacingOccurrences(of: "%2e", with: ".")
    return dots == "." || dots == ".."
  }

  /// `path` as an error shows it: the user-info of an absolute URL, and the values of query
  /// items whose names are credentials (``Redaction``'s rule, with `extra`), replaced by the
  /// placeholder. The path may be no URL at all, so it is taken apart as text.
  static func shown(_ path: String, redacting extra: Set<String>) -> String {
    var (head, query) = split(path, at: "?")
    if let start = head.range(of: "://")?.upperBound {
      let end = head[start...].firstIndex(of: "/") ?? head.endIndex
      if let at = head[start..<end].lastIndex(of: "@") {
        head.replaceSubrange(start...at, with: Redaction.placeholder + "@")
      }
    }
    guard let query else { return head }
    let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item in
      let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = String(parts[0])
      guard parts.count == 2,
        Redaction.isSensitive(name: name.removingPercentEncoding ?? name, extra: extra)
      else { return String(item) }
      // A fragment after the value stays: it may be what the error is about.
      let fragment = parts[1].firstIndex(of: "#").map { parts[1][$0...] } ?? ""
      return name + "=" + Redaction.placeholder + fragment
    }
    return head + "?" + items.joined(separator: "&")
  }

  /// The schemes a base URL may have.
  static let baseSchemes: Set<String> = ["http", "https", "ws", "wss", "http+unix", "https+unix"]

  /// The base URL's text without its query or fragment, and its encoded query.
  private static func split(base: URL) throws(HTTPError) -> (String, String) {
    let scheme = base.scheme?.lowercased()
    if UnixSocketURL.isUnix(scheme), let refusal = UnixSocketURL.refusal(of: base) {
      throw refusal
    }
    // ws and wss serve WebSocket clients (``HTTPClient/webSocket(_:subprotocols:settings:reconnection:)``),
    // http+unix and https+unix servers on a Unix domain socket (`URL(unixSocketPath:)`).
    guard let scheme, Self.baseSchemes.contains(scheme), let host = base.host, !host.isEmpty
    else {
      throw .invalidRequest(
        reason:
          "the base URL '\(Redaction.url(base))' is not an absolute http, https, ws, wss, "
          + "http+unix or https+unix URL")
    }
    let withoutFragment = split(base.absoluteString, at: "#").0
    let (text, query) = split(withoutFragment, at: "?")
    return (lowercasingScheme(text, scheme), query ?? "")
  }

  /// `text`, a URL whose scheme is `scheme` in any case, with the scheme in lower case
  /// (RFC 3986 §3.1: `HTTP://h` is `http://h`), which is how every transport reads it
  /// (URLSession on Linux refuses `HTTP:` as an unsupported URL).
  static func lowercasingScheme(_ text: String, _ scheme: String) -> String {
    text.utf8.starts(with: scheme.utf8) ? text : scheme + text.dropFirst(scheme.count)
  }

  private static func join(_ base: String, _ path: String) -> String {
    guard !path.isEmpty else { return base }
    var joined = base
    while joined.hasSuffix("/") { joined.removeLast() }
    var tail = Substring(path)
    while tail.hasPrefix("/") { tail.removeFirst() }
    return joined + "/" + tail
  }

  private static func split(_ text: String, at separator: Character) -> (String, String?) {
    // ASCII text (every URL Courier builds, almost every path) is searched byte by byte: a
    // search by Character walks grapheme clusters and cost ~25,000 instructions a request.
    if let byte = separator.asciiValue, text.utf8.allSatisfy({ $0 < 0x80 }) {
      guard let index = text.utf8.firstIndex(of: byte) else { return (text, nil) }
      return (String(text[..<index]), String(text[text.utf8.index(after: index)...]))
    }
    guard let index = text.firstIndex(of: separator) else { return (text, nil) }
    return (String(text[..<index]), String(text[text.index(after: index)...]))
  }

  /// The lowercased scheme when `text` starts like `scheme://`.
  private static func scheme(of text: String) -> String? {
    // "://" looked for byte by byte (Foundation's range(of:) bridges to NSString).
    let bytes = text.utf8
    var index = bytes.startIndex
    var found: String.Index?
    while index < bytes.endIndex, found == nil {
      if bytes[index] == UInt8(ascii: ":"),
        bytes[index...].starts(with: "://".utf8)
      {
        found = index
      }
      index = bytes.index(after: index)
    }
    guard let found else { return nil }
    let candidate = text[..<found]
    guard let first = candidate.first, first.isLetter,
      candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
    else { return nil }
    return candidate.lowercased()
  }

  private static func isPathByte(_ byte: UInt8) -> Bool {
    PercentEncoding.isPathCharacter(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "%")
  }

  private static func isQueryByte(_ byte: UInt8) -> Bool {
    isPathByte(byte) || byte == UInt8(ascii: "?")
  }
}
