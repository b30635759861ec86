import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A ``URLSessionTransport``'s ``ClientIdentity`` and ``ProxyConfiguration``: the same values
/// ``CurlTransport/Configuration`` takes, and where URLSession cannot honour them.
extension URLSessionTransport {
  /// Why no request can go through a transport given `clientIdentity` and `proxy` on
  /// `platform`, if none can; a pure rule, so that both platforms' answers are tested here.
  ///
  /// - FoundationNetworking: no client-certificate challenge (it sends no TLS challenges), and
  ///   `connectionProxyDictionary` is kept but never read: its libcurl easy handle sets no
  ///   proxy ("TODO: Proxy setting" in swift-corelibs-foundation's EasyHandle.swift), so
  ///   requests would go out without the identity, or around the proxy.
  /// - Apple: PEM files, which iOS has no public API to pair with their key into a
  ///   `SecIdentity`; PKCS#12 and every proxy work.
  static func refusal(
    clientIdentity: ClientIdentity?, proxy: ProxyConfiguration?,
    on platform: ChallengeAnswer.Platform
  ) -> HTTPError? {
    switch platform {
    case .foundationNetworking:
      if clientIdentity != nil {
        return .invalidRequest(
          reason:
            "URLSessionTransport cannot present a client identity on Linux (FoundationNetworking "
            + "has no client-certificate challenge); use CurlTransport, whose "
            + "Configuration.clientIdentity does")
      }
      if proxy != nil {
        return .invalidRequest(
          reason:
            "URLSessionTransport cannot use a configured proxy on Linux (FoundationNetworking "
            + "ignores connectionProxyDictionary); use CurlTransport, whose Configuration.proxy "
            + "does")
      }
    case .apple:
      if case .pem = clientIdentity?.source {
        return .invalidRequest(
          reason:
            "URLSessionTransport cannot present a client identity from PEM files (Apple platforms "
            + "have no public API to pair a PEM key with its certificate); give it as "
            + "ClientIdentity.pkcs12(_:passphrase:)")
      }
    }
    return nil
  }

  /// `configuration`, or a copy of it whose `connectionProxyDictionary` is `proxy`'s; the
  /// caller's configuration is left alone.
  static func configuration(
    _ configuration: URLSessionConfiguration, proxy: ProxyConfiguration?
  ) -> URLSessionConfiguration {
    guard let proxy, let copy = configuration.copy() as? URLSessionConfiguration else {
      return configuration
    }
    copy.connectionProxyDictionary = proxy.connectionProxyDictionary
    return copy
  }
}
