import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#else
  import Security
#endif

// How a ServerTrust answers a server-trust challenge: Apple platforms evaluate the challenge's
// SecTrust against its anchors, then match the leaf's key to its pins. Linux has no server-trust
// challenge (FoundationNetworking sends none), so a URLSessionTransport given a trust refuses
// every request there (URLSessionTransport+ConnectionSettings.swift) and this is never reached.

extension ResolvedTrust {
  #if canImport(FoundationNetworking)
    /// Linux: never asked (FoundationNetworking has no server-trust challenge); refuses.
    func decision(for challenge: URLAuthenticationChallenge) -> Decision {
      .refuse(Self.refusal(host: challenge.protectionSpace.host, check: .chain))
    }

    /// Linux: nothing more to check.
    var platformRefusal: HTTPError? { nil }
  #else
    /// Apple platforms: the answer to the server-trust challenge `challenge`.
    ///
    /// With anchors, `SecTrustSetAnchorCertificates` makes them the only trusted ones ("disables
    /// the trusting of any other anchors", Apple's page of that function) and
    /// `SecTrustSetAnchorCertificatesOnly(trust, false)` trusts the system's beside them when
    /// asked ("reenables trusting built-in anchor certificates"). `SecTrustEvaluateWithError`
    /// then evaluates the chain with the challenge's own policy (the SSL policy for its host),
    /// synchronously on the session's delegate queue (it may fetch an intermediate the server
    /// left out); its error becomes the refusal's underlying error. With pins, the leaf (the
    /// first of `SecTrustCopyCertificateChain`) must hold one of the keys (see ``pin(of:)``).
    /// Only a chain valid for the host is ever matched.
    ///
    /// A server trusted through the trust's own anchors gets `URLCredential(trust:)`; one
    /// trusted through the system's roots (pins alone) is left to URLSession's default
    /// handling, which evaluates it again with App Transport Security's checks.
    func decision(for challenge: URLAuthenticationChallenge) -> Decision {
      let host = challenge.protectionSpace.host
      guard let trust = challenge.protectionSpace.serverTrust else {
        return .refuse(Self.refusal(host: host, check: .chain))
      }
      if !anchors.isEmpty {
        let certificates = anchors.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
        var status = SecTrustSetAnchorCertificates(trust, certificates as CFArray)
        if status == errSecSuccess {
          status = SecTrustSetAnchorCertificatesOnly(trust, !trustsSystemRoots)
        }
        guard status == errSecSuccess else {
          return .refuse(Self.refusal(host: host, check: .anchors(status: status)))
        }
      }
      var error: CFError?
      guard SecTrustEvaluateWithError(trust, &error) else {
        return .refuse(Self.refusal(host: host, check: .chain, underlying: error))
      }
      if !pins.isEmpty {
        guard let leaf = (SecTrustCopyCertificateChain(trust) as? [SecCertificate])?.first,
          let key = SecCertificateCopyKey(leaf), let pin = Self.pin(of: key)
        else { return .refuse(Self.refusal(host: host, check: .unsupportedKey)) }
        guard pins.contains(pin) else {
          return .refuse(Self.refusal(host: host, check: .pinnedKey))
        }
      }
      return passed(URLCredential(trust: trust))
    }

    /// Apple platforms: an anchor the Security framework cannot read (`SecCertificateCreateWithData`
    /// "returns nil if the data … is not a valid DER-encoded X.509 certificate") refuses every
    /// request, as bad input, rather than every server.
    var platformRefusal: HTTPError? {
      for anchor in anchors where SecCertificateCreateWithData(nil, anchor as CFData) == nil {
        return .invalidRequest(
          reason:
            "a certificate authority of the ServerTrust is not an X.509 certificate the Security "
            + "framework can read (\(anchor.count) bytes of DER)")
      }
      return nil
    }

    /// The pin of `key`, from its `SecKeyCopyExternalRepresentation` bytes, whose kind (and
    /// why it is read from them) ``SubjectPublicKeyInfo/kind(ofExternalRepresentation:)`` tells;
    /// `nil` for a key no pin can match.
    static func pin(of key: SecKey) -> Data? {
      guard let representation = SecKeyCopyExternalRepresentation(key, nil) as Data?,
        let kind = SubjectPublicKeyInfo.kind(ofExternalRepresentation: representation)
      else { return nil }
      return SubjectPublicKeyInfo.pin(of: representation, kind: kind)
    }
  #endif
}
