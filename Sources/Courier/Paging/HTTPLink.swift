import Foundation

/// One link of an RFC 8288 `Link` header: a target URL, its relation types and parameters.
///
/// ```swift
/// // Link: <https://api.github.com/repos?page=2>; rel="next", <…?page=9>; rel="last"
/// response.link(rel: "next")   // https://api.github.com/repos?page=2
/// ```
public struct HTTPLink: Sendable, Equatable {
  /// The target, resolved against the response's URL when it was relative.
  public var url: URL
  /// The relation types (`rel`), lowercased: `["next"]`, or several for `rel="next last"`.
  public var relations: [String]
  /// Every parameter by lowercased name, quotes and escapes removed (`rel` included).
  public var parameters: [String: String]

  /// Creates a link.
  public init(url: URL, relations: [String], parameters: [String: String] = [:]) {
    self.url = url
    self.relations = relations
    self.parameters = parameters
  }

  /// The links in a `Link` header value; malformed link-values are skipped, the rest kept.
  public static func parse(_ header: String, relativeTo base: URL? = nil) -> [HTTPLink] {
    var scanner = HeaderScanner(header)
    var links: [HTTPLink] = []
    while !scanner.isAtEnd {
      if let link = scanner.linkValue(relativeTo: base) {
        links.append(link)
      }
      scanner.skipPast(",")
    }
    return links
  }
}

extension HTTPResponse {
  /// The links of every `Link` header, resolved against the response URL.
  public var links: [HTTPLink] {
    headers.values(for: "Link").flatMap { HTTPLink.parse($0, relativeTo: url) }
  }

  /// The first link with relation type `rel` (case-insensitive), e.g. `"next"`.
  public func link(rel: String) -> URL? {
    let rel = rel.lowercased()
    return links.first { $0.relations.contains(rel) }?.url
  }
}

extension HeaderScanner {
  /// One link-value, `<uri-reference> *( ";" param [ "=" ( token / quoted-string ) ] )`, or
  /// `nil` (leaving the scanner inside it) when it is malformed.
  mutating func linkValue(relativeTo base: URL?) -> HTTPLink? {
    skipWhitespace()
    guard take("<") else { return nil }
    let start = index
    while !isAtEnd && scalars[index] != ">" { index += 1 }
    guard !isAtEnd else { return nil }
    let target = String(String.UnicodeScalarView(scalars[start..<index]))
    index += 1
    var parameters: [String: String] = [:]
    while true {
      skipWhitespace()
      guard take(";") else { break }
      skipWhitespace()
      let name = token().lowercased()
      guard !name.isEmpty else { return nil }
      skipWhitespace()
      var value = ""
      if take("=") {
        skipWhitespace()
        guard let parsed = isAtEnd ? nil : (scalars[index] == "\"" ? quotedString() : token())
        else { return nil }
        value = parsed
      }
      if parameters[name] == nil { parameters[name] = value }  // RFC 8288: the first one counts
    }
    skipWhitespace()
    guard isAtEnd || scalars[index] == "," else { return nil }
    let forbidden: Set<Unicode.Scalar> = [" ", "\t", "<", "\"", "\r", "\n"]
    guard !target.unicodeScalars.contains(where: forbidden.contains),
      let url = URL(string: target, relativeTo: base)?.absoluteURL, url.scheme != nil
    else {
      return nil
    }
    let relations = (parameters["rel"] ?? "").lowercased().split(separator: " ").map(String.init)
    return HTTPLink(url: url, relations: relations, parameters: parameters)
  }
}
