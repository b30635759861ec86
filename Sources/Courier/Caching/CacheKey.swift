import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How a request finds its stored responses: a primary key from its URL, and for each
/// stored response a variant key from the request's credentials and the headers the
/// response's `Vary` names (RFC 9111 §4.1). Both are SHA-256 digests salted with the
/// cache's own random salt, so neither a file name nor a stored entry reveals a credential
/// or a header value, and a short credential cannot be found by hashing guesses without the
/// salt.
///
/// Credentials are always part of the variant: a response to a request that carried
/// `Authorization`, a cookie or an API key (whatever ``Credentials`` counts as one,
/// including names the client or a middleware added) is only ever found by a request
/// with the same values. A credential in the query is part of the URL, and so of the
/// primary key.
struct CacheKey: Sendable {
  /// The digest of the request's URL.
  let primary: String
  /// The cache's salt, which every digest starts with.
  private let salt: String
  /// The request's credential rules (names, and the request as sent).
  let rules: Credentials
  /// The digest of the request's credential headers, or empty when it carried none.
  private let credentials: String
  /// The request's headers, for the values `Vary` names.
  private let headers: [String: String]

  init(_ request: URLRequest, credentials rules: Credentials, salt: String) {
    self.salt = salt
    self.rules = rules
    primary = Self.primary(for: request.url, salt: salt)
    var headers: [String: String] = [:]
    for (name, value) in request.allHTTPHeaderFields ?? [:] {
      let name = name.lowercased()
      headers[name] = headers[name].map { "\($0), \(value)" } ?? value
    }
    self.headers = headers
    let credentialFields = headers.filter { rules.isCredential($0.key) }
      .sorted { $0.key < $1.key }
    credentials =
      credentialFields.isEmpty
      ? "" : SHA256.hex(salt + credentialFields.map { "\($0.key)\u{0}\($0.value)\u{0}" }.joined())
  }

  /// The primary key of `url` in a cache salted with `salt`: the digest of its absolute
  /// string.
  static func primary(for url: URL?, salt: String) -> String {
    SHA256.hex(salt + "\u{0}url\u{0}" + (url?.absoluteString ?? ""))
  }

  /// The variant key of this request for a response whose `Vary` names `varyNames`
  /// (lowercased): the digest of its credentials and of the value of each named header
  /// (fields joined, spaces trimmed; absent is distinct from empty).
  func variant(for varyNames: [String]) -> String {
    var text = "\(salt)\u{0}credentials\u{0}\(credentials)\u{0}"
    for name in Set(varyNames).sorted() {
      let value = headers[name].map { "=" + $0.trimmingCharacters(in: .whitespaces) } ?? "absent"
      text += "\(name)\u{0}\(value)\u{0}"
    }
    return SHA256.hex(text)
  }

  /// The lowercased names a response's `Vary` fields list; `*` when it varies on
  /// something no request shows (such a response never matches, so it is not stored).
  static func varyNames(_ headers: HTTPHeaders) -> [String] {
    headers.values(for: "Vary").flatMap { $0.split(separator: ",") }
      .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
      .filter { !$0.isEmpty }
  }
}
