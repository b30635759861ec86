import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The directives of `Cache-Control` fields (RFC 9111 §5.2), of a request or a response:
/// names are lowercased, a directive given twice keeps its first value, and the rest of a
/// field survives a directive it cannot read.
struct CacheControl: Sendable, Equatable {
  private var directives: [String: String] = [:]

  /// The directives of every `Cache-Control` field in `headers`; with none, `Pragma:
  /// no-cache` counts as `no-cache` (RFC 9111 §5.4, for HTTP/1.0 peers).
  init(_ headers: HTTPHeaders) {
    let fields = headers.values(for: "Cache-Control")
    for field in fields {
      for (name, value) in Self.split(field) where directives[name] == nil {
        directives[name] = value
      }
    }
    if fields.isEmpty,
      headers.values(for: "Pragma").contains(where: { $0.lowercased().contains("no-cache") })
    {
      directives["no-cache"] = ""
    }
  }

  /// The directives of a request's `Cache-Control` (or `Pragma`) fields.
  init(request: URLRequest) {
    self.init(
      HTTPHeaders(
        (request.allHTTPHeaderFields ?? [:]).map {
          HTTPHeaders.Field(name: $0.key, value: $0.value)
        }
      ))
  }

  /// Whether the directive `name` (lowercase) is present, with or without a value.
  func has(_ name: String) -> Bool {
    directives[name] != nil
  }

  /// The lowercased field names the directive `name` lists, as in the qualified `no-cache="A,
  /// B"` (RFC 9111 §5.2.2.4), quoted or a single token; empty when it lists none or is absent.
  func fieldNames(_ name: String) -> Set<String> {
    guard let value = directives[name] else { return [] }
    return Set(
      value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        .filter { !$0.isEmpty })
  }

  /// The directive's delta-seconds: `nil` when absent, `.invalid` when its value is not a
  /// non-negative integer (such a response counts as stale, RFC 9111 §4.2.1); values past
  /// 2³¹ read as 2³¹ (§1.2.2).
  func seconds(_ name: String) -> Seconds? {
    guard let value = directives[name] else { return nil }
    guard !value.isEmpty, value.utf8.allSatisfy({ (48...57).contains($0) }) else {
      return .invalid
    }
    return .value(Double(value.prefix(10)).map { min($0, 2_147_483_648) } ?? 2_147_483_648)
  }

  /// A directive's delta-seconds, or the mark of one that could not be read.
  enum Seconds: Equatable {
    case value(Double)
    case invalid

    /// The seconds, with `invalid` read as `invalid`.
    func or(_ invalid: Double) -> Double {
      if case .value(let seconds) = self { return seconds }
      return invalid
    }
  }

  /// `name[=value]` pairs of one field: tokens, with a token or quoted-string value, between
  /// commas; what cannot be read is skipped up to the next comma.
  private static func split(_ field: String) -> [(String, String)] {
    var scanner = HeaderScanner(field)
    var pairs: [(String, String)] = []
    while !scanner.isAtEnd {
      scanner.skipWhitespace()
      let name = scanner.token().lowercased()
      scanner.skipWhitespace()
      var value = ""
      if scanner.take("=") {
        scanner.skipWhitespace()
        value = (scanner.next == "\"" ? scanner.quotedString() : scanner.token()) ?? ""
      }
      if !name.isEmpty { pairs.append((name, value)) }
      scanner.skipPast(",")
    }
    return pairs
  }
}
