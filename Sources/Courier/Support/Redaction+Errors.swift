import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension Redaction {
  /// ``proxyCredentials(in:)`` of the environment as it was when first asked: what a
  /// transport with no proxy of its own tells each client it serves (``HoldsCredentials``),
  /// read once per process rather than each time a client is made (a client made for each
  /// request, as hurried code does, would copy the whole environment each time). Errors
  /// read the environment afresh (``libcurlProxyCredentials()``).
  static let environmentProxyCredentials = libcurlProxyCredentials()

  /// The user info (user and password) of the proxies the environment names — `http_proxy`,
  /// `https_proxy`, `all_proxy` and every other `…_proxy` but `no_proxy`, in any case — as
  /// written and percent-decoded, the whole and the password alone, and the Basic token
  /// libcurl sends the proxy (``loginSecrets(user:password:)``). libcurl (CurlTransport's,
  /// and FoundationNetworking's under URLSessionTransport) reads these variables itself, and
  /// when it cannot use one (a password with an `@`, `/` or space left unencoded, a scheme it
  /// does not know) fails the transfer with words that quote it whole. The user info ends at
  /// the value's last `@`, as URLs have it; before it, after any `scheme://`, all is secret.
  static func proxyCredentials(
    in environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> [String] {
    var secrets: [String] = []
    for (name, value) in environment {
      let name = name.lowercased()
      guard name.hasSuffix("_proxy"), name != "no_proxy", let at = value.lastIndex(of: "@")
      else { continue }
      let start = value.range(of: "://").map { $0.upperBound } ?? value.startIndex
      guard start <= at else { continue }
      let userInfo = String(value[start..<at])
      let password = userInfo.firstIndex(of: ":").map { String(userInfo[$0...].dropFirst()) }
      for secret in [userInfo, password].compactMap({ $0 }) {
        secrets.append(secret)
        if let decoded = secret.removingPercentEncoding { secrets.append(decoded) }
      }
      let decoded = userInfo.removingPercentEncoding ?? userInfo
      if let colon = decoded.firstIndex(of: ":") {
        secrets += loginSecrets(
          user: String(decoded[..<colon]), password: String(decoded[colon...].dropFirst()))
      }
    }
    return secrets.filter { $0.count >= 3 }.sorted { $0.count > $1.count }
  }

  /// What a login of `user` and `password` puts on the wire, as the credential rule scrubs
  /// it: the password, `user:password`, and Basic's token of them (`Proxy-Authorization:
  /// Basic …`); nothing without a password (a user name alone is no secret).
  static func loginSecrets(user: String, password: String?) -> [String] {
    guard let password, !password.isEmpty else { return [] }
    let pair = user + ":" + password
    return [password, pair, Data(pair.utf8).base64EncodedString()]
  }

  /// libcurl's words about a failure (its error buffer), made fit to be an error's reason:
  /// without the environment's proxy credentials, which it quotes when it cannot use them.
  static func libcurlWords(_ words: String) -> String {
    scrub(words, secrets: proxyCredentials())
  }

  /// An error's user info with every secret scrubbed from its texts (its description, the
  /// reason Courier or libcurl gave) and from those of the errors under it
  /// (`NSUnderlyingErrorKey`), which a `dump` or an error's own description shows; a URL
  /// value, at any depth (an Apple error under another carries its own failing URL), is
  /// given to `url` (and its deprecated string form dropped). Other values are kept as they
  /// are, and so is an error under it that holds no secret.
  static func scrub(
    userInfo: [String: Any], secrets: [String], url redact: ((URL) -> URL?)? = nil,
    depth: Int = 0
  ) -> [String: Any] {
    guard !secrets.isEmpty || redact != nil else { return userInfo }
    var scrubbed = userInfo
    for (key, value) in userInfo {
      if let text = value as? String {
        scrubbed[key] = scrub(text, secrets: secrets)
      } else if let url = value as? URL, let redact {
        scrubbed[key] = redact(url)
      } else if key == NSUnderlyingErrorKey, let error = value as? any Error, depth < 4 {
        let error = error as NSError
        let inner = scrub(
          userInfo: error.userInfo, secrets: secrets, url: redact, depth: depth + 1)
        if !NSDictionary(dictionary: inner).isEqual(to: error.userInfo) {
          scrubbed[key] = NSError(domain: error.domain, code: error.code, userInfo: inner)
        }
      }
    }
    if redact != nil, userInfo[NSURLErrorFailingURLErrorKey] is URL {
      scrubbed["NSErrorFailingURLStringKey"] = nil  // the deprecated string form
    }
    return scrubbed
  }
}
