// The "Choosing a transport" article's certificate-pinning example. Security exists on Apple platforms only, so this
// file compiles (and the test runs) there, in the macOS job of .github/workflows/ci.yml.
#if canImport(Security)
  import Courier
  import Foundation
  import Security
  import Testing

  @Suite("Choosing a transport: certificate pinning (Apple platforms)")
  struct PinningExampleTests {
    /// The article's transport, for a set of pinned keys.
    static func transport(pinnedKeys: Set<Data>) -> URLSessionTransport {
      URLSessionTransport(tlsChallenges: { challenge in
        guard challenge.kind == .serverTrust,
          let trust = challenge.challenge.protectionSpace.serverTrust
        else { return .useDefault }
        // The chain must be valid for the host, and its leaf's key one of the pinned ones.
        guard SecTrustEvaluateWithError(trust, nil),
          let leaf = (SecTrustCopyCertificateChain(trust) as? [SecCertificate])?.first,
          let key = SecCertificateCopyKey(leaf),
          let bytes = SecKeyCopyExternalRepresentation(key, nil) as Data?,
          pinnedKeys.contains(bytes)
        else { return .reject }
        return .use(URLCredential(trust: trust))
      })
    }

    @Test("the pinning transport builds, and owns a session of its own")
    func builds() {
      let transport = Self.transport(pinnedKeys: [Data([1, 2, 3])])
      #expect(transport.session.configuration.identifier == nil)
    }
  }
#endif
