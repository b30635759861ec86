import Foundation

/// A ``ProxyConfiguration`` as URLSession takes it: the session configuration's
/// `connectionProxyDictionary`, and the credential its proxy's challenge is answered with.
///
/// The keys are the documented values of CFNetwork's constants, written out so that the
/// mapping is one pure function, the same (and tested) on every platform; on watchOS and iOS
/// most of the constants are not even declared. Each key's value, from the page of its
/// System Configuration twin ("Proxies Entity Keys", developer.apple.com/documentation/
/// systemconfiguration/proxies-entity-keys: `kSCPropNetProxiesHTTPEnable` is "The Proxies key
/// `HTTPEnable`" …), equal to `kCFNetworkProxiesHTTPEnable` … (developer.apple.com/
/// documentation/cfnetwork/kcfnetworkproxieshttpenable and its siblings).
extension ProxyConfiguration {
  /// CFNetwork's proxy dictionary keys (`kCFNetworkProxies…`).
  enum DictionaryKey {
    static let httpEnable = "HTTPEnable"
    static let httpProxy = "HTTPProxy"
    static let httpPort = "HTTPPort"
    static let httpsEnable = "HTTPSEnable"
    static let httpsProxy = "HTTPSProxy"
    static let httpsPort = "HTTPSPort"
    static let socksEnable = "SOCKSEnable"
    static let socksProxy = "SOCKSProxy"
    static let socksPort = "SOCKSPort"
    static let exceptionsList = "ExceptionsList"
  }

  /// The session configuration's `connectionProxyDictionary` for this proxy: an HTTP proxy
  /// for `http` and `https` alike (the latter through `CONNECT`), or a SOCKS proxy; the
  /// excluded hosts as CFNetwork's exceptions. No credentials: Apple documents no key for
  /// them in this dictionary (`kCFProxyUsernameKey` and `kCFProxyPasswordKey` describe the
  /// proxies `CFNetworkCopyProxiesForURL` returns), so they answer the proxy's challenge
  /// instead (``credential(forProxyHost:port:previousFailureCount:)``).
  var connectionProxyDictionary: [String: Any] {
    var dictionary: [String: Any] = [:]
    switch kind {
    case .http:
      dictionary[DictionaryKey.httpEnable] = 1
      dictionary[DictionaryKey.httpProxy] = host
      dictionary[DictionaryKey.httpPort] = port
      dictionary[DictionaryKey.httpsEnable] = 1
      dictionary[DictionaryKey.httpsProxy] = host
      dictionary[DictionaryKey.httpsPort] = port
    case .socks5:
      dictionary[DictionaryKey.socksEnable] = 1
      dictionary[DictionaryKey.socksProxy] = host
      dictionary[DictionaryKey.socksPort] = port
    }
    let patterns = exceptionPatterns
    if !patterns.isEmpty {
      dictionary[DictionaryKey.exceptionsList] = patterns
    }
    return dictionary
  }

  /// The excluded hosts as CFNetwork's exception patterns, where `*` is a wildcard
  /// (developer.apple.com/documentation/cfnetwork/kcfnetworkproxiesexceptionslist: "host name
  /// patterns that should bypass the proxy"): a name stands for itself and, as
  /// ``excludedHosts`` says, its subdomains (`*.name`); a leading dot for the subdomains; `*`,
  /// `*.name` and addresses as they are, an IPv6 one also in brackets (``exclusions``: spaces
  /// and line breaks around an entry dropped, empty entries too).
  var exceptionPatterns: [String] {
    exclusions.flatMap { host -> [String] in
      if host == "*" || host.hasPrefix("*.") { return [host] }
      if host.hasPrefix(".") { return ["*\(host)"] }
      // An IPv6 address both bare and in brackets: which form CFNetwork compares is not
      // documented.
      if host.contains(":") { return [host, "[\(host)]"] }
      if host.allSatisfy({ $0.isNumber || $0 == "." }) { return [host] }
      return [host, "*.\(host)"]
    }
  }

  /// The user name and password a challenge from this proxy (`407`) is answered with: only
  /// when the challenge comes from this proxy's host and port, the proxy was given a user
  /// name, and no answer has failed yet (a second challenge gets the system's handling, so a
  /// wrong password ends as the proxy's refusal rather than a loop). An IPv6 address matches
  /// with or without its brackets, however either side writes it.
  func credential(forProxyHost proxyHost: String, port proxyPort: Int, previousFailureCount: Int)
    -> (user: String, password: String)?
  {
    func bare(_ host: String) -> String {
      let host = host.lowercased()
      return host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
    guard let username, previousFailureCount == 0, proxyPort == port, bare(proxyHost) == bare(host)
    else { return nil }
    return (username, password ?? "")
  }
}
