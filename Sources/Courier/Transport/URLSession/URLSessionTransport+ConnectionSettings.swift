import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A ``URLSessionTransport``'s ``ServerTrust``, minimum ``TLSVersion``, ``ClientIdentity`` and
/// ``ProxyConfiguration``: the same values ``CurlTransport/Configuration`` takes, and where
/// URLSession cannot honour them.
extension URLSessionTransport {
  struct ConnectionSettings: Sendable {
    let minimumTLSVersion: TLSVersion?
    let clientIdentity: ClientIdentity?
    let proxy: ProxyConfiguration?
    /// The trust read and checked, once (its files are read here); `nil` when it asks for
    /// nothing beyond the system's default.
    let resolvedTrust: Result<ResolvedTrust, HTTPError>?

    init(
      trust: ServerTrust? = nil, minimumTLSVersion: TLSVersion? = nil,
      clientIdentity: ClientIdentity? = nil, proxy: ProxyConfiguration? = nil
    ) {
      self.minimumTLSVersion = minimumTLSVersion
      self.clientIdentity = clientIdentity
      self.proxy = proxy
      resolvedTrust = trust.flatMap { $0.changesDefault ? $0.resolved() : nil }
    }

    /// Why no request can go through a transport with these settings on `platform`, if none
    /// can; a pure rule, so that both platforms' answers are tested here.
    ///
    /// - FoundationNetworking: no TLS challenges at all (neither client certificate nor server
    ///   trust: it verifies servers against the system's roots itself), no minimum TLS version
    ///   in its configuration, and `connectionProxyDictionary` kept but never read: its
    ///   libcurl easy handle sets no proxy ("TODO: Proxy setting" in swift-corelibs-foundation's
    ///   EasyHandle.swift). Requests would go out without the identity, around the proxy, or
    ///   trusting servers the trust refuses.
    /// - Apple: PEM files, which iOS has no public API to pair with their key into a
    ///   `SecIdentity`, and a trust whose files or pins cannot be used; PKCS#12, every proxy,
    ///   every trust and both TLS versions work.
    func refusal(on platform: ChallengeAnswer.Platform) -> HTTPError? {
      switch platform {
      case .foundationNetworking:
        if clientIdentity != nil {
          return Self.linuxRefusal(
            "present a client identity", because: "has no client-certificate challenge",
            instead: "Configuration.clientIdentity")
        }
        if proxy != nil {
          return Self.linuxRefusal(
            "use a configured proxy", because: "ignores connectionProxyDictionary",
            instead: "Configuration.proxy")
        }
        if resolvedTrust != nil {
          return Self.linuxRefusal(
            "apply a ServerTrust (certificate authorities, pinned keys)",
            because: "has no server-trust challenge", instead: "Configuration.trust")
        }
        if minimumTLSVersion != nil {
          return Self.linuxRefusal(
            "require a minimum TLS version",
            because: "has no tlsMinimumSupportedProtocolVersion",
            instead: "Configuration.minimumTLSVersion")
        }
      case .apple:
        if let refusal = proxy?.refusal { return refusal }
        if case .pem = clientIdentity?.source {
          return .invalidRequest(
            reason:
              "URLSessionTransport cannot present a client identity from PEM files (Apple "
              + "platforms have no public API to pair a PEM key with its certificate); give it "
              + "as ClientIdentity.pkcs12(_:passphrase:)")
        }
        switch resolvedTrust {
        case .failure(let error): return error
        case .success(let trust): return trust.platformRefusal
        case nil: break
        }
      }
      return nil
    }

    /// Linux's refusal of what FoundationNetworking cannot do, naming CurlTransport's setting.
    private static func linuxRefusal(_ what: String, because why: String, instead: String)
      -> HTTPError
    {
      .invalidRequest(
        reason:
          "URLSessionTransport cannot \(what) on Linux (FoundationNetworking \(why)); use "
          + "CurlTransport, whose \(instead) does")
    }

    /// `configuration`, or a copy of it with the proxy's `connectionProxyDictionary` and the
    /// minimum TLS version; the caller's configuration is left alone.
    func applied(to configuration: URLSessionConfiguration) -> URLSessionConfiguration {
      guard proxy != nil || minimumTLSVersion != nil,
        let copy = configuration.copy() as? URLSessionConfiguration
      else { return configuration }
      if let proxy { copy.connectionProxyDictionary = proxy.connectionProxyDictionary }
      minimumTLSVersion?.apply(to: copy)
      return copy
    }
  }
}
