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
    /// Linux: none; FoundationNetworking has no server-trust challenge.
    func credential(for challenge: URLAuthenticationChallenge) -> URLCredential? {
      nil
    }

    /// Linux: nothing more to check.
    var platformRefusal: HTTPError? { nil }
  #else
    /// Apple platforms: the credential that trusts the server of `challenge`, or `nil` to
    /// refuse it.
    ///
    /// With anchors, `SecTrustSetAnchorCertificates` makes them the only trusted ones ("disables
    /// the trusting of any other anchors", Apple's page of that function) and
    /// `SecTrustSetAnchorCertificatesOnly(trust, false)` trusts the system's beside them when
    /// asked ("reenables trusting built-in anchor certificates"). `SecTrustEvaluateWithError`
    /// then evaluates the chain with the challenge's own policy (the SSL policy for its host).
    /// With pins, the leaf (the first of `SecTrustCopyCertificateChain`) must hold one of
    /// the keys: its `SecCertificateCopyKey`, as `SecKeyCopyExternalRepresentation` gives it
    /// (PKCS #1 for RSA, ANSI X9.63 for elliptic curves), becomes the `SubjectPublicKeyInfo`
    /// curl hashes. Only a chain valid for the host is ever matched.
    func credential(for challenge: URLAuthenticationChallenge) -> URLCredential? {
      guard let trust = challenge.protectionSpace.serverTrust else { return nil }
      if !anchors.isEmpty {
        let certificates = anchors.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
        guard SecTrustSetAnchorCertificates(trust, certificates as CFArray) == errSecSuccess,
          SecTrustSetAnchorCertificatesOnly(trust, !trustsSystemRoots) == errSecSuccess
        else { return nil }
      }
      guard SecTrustEvaluateWithError(trust, nil) else { return nil }
      if !pins.isEmpty {
        guard let leaf = (SecTrustCopyCertificateChain(trust) as? [SecCertificate])?.first,
          let key = SecCertificateCopyKey(leaf), let pin = Self.pin(of: key),
          pins.contains(pin)
        else { return nil }
      }
      return URLCredential(trust: trust)
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

    /// The pin of `key`: its kind from `SecKeyCopyAttributes`' `kSecAttrKeyType` (compared as
    /// text, whichever Core Foundation type the value comes as), its bytes from
    /// `SecKeyCopyExternalRepresentation`; `nil` for a kind pins cannot match (not RSA, nor
    /// an elliptic curve of P-256, P-384 or P-521).
    static func pin(of key: SecKey) -> Data? {
      guard let attributes = SecKeyCopyAttributes(key) as? [String: Any],
        let type = attributes[kSecAttrKeyType as String],
        let representation = SecKeyCopyExternalRepresentation(key, nil) as Data?
      else { return nil }
      let kind: SubjectPublicKeyInfo.Kind
      switch "\(type)" {
      case "\(kSecAttrKeyTypeRSA)": kind = .rsa
      case "\(kSecAttrKeyTypeECSECPrimeRandom)": kind = .ellipticCurve
      default: return nil
      }
      return SubjectPublicKeyInfo.pin(of: representation, kind: kind)
    }
  #endif
}
