// The "Choosing a transport" and "Security" articles' trust example: one ServerTrust for both
// transports. It imports nothing but Courier, Foundation and Testing, so .ci/apple-compile/check
// compiles it as Apple platforms see it too (where CurlTransport does not exist).
import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Choosing a transport: custom CAs and pinning, declared once for both transports")
struct PinningExampleTests {
  /// The articles' trust: a private CA (PEM), only it, and the server's key pinned with its
  /// next one.
  static func articleTrust(authority caFile: URL) -> ServerTrust {
    ServerTrust(
      certificateAuthorities: [.file(caFile)],
      pinnedPublicKeys: [
        "n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=",  // today's key
        "sha256//YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=",  // the next one, as curl spells it
      ])
  }

  @Test("the same value goes to URLSessionTransport and, on Linux, CurlTransport")
  func sameValue() throws {
    let caFile = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-article-ca-\(UUID().uuidString).pem")
    let trust = Self.articleTrust(authority: caFile)

    let session = URLSessionTransport(trust: trust, minimumTLSVersion: .tls12)
    #expect(session.session.configuration.identifier == nil)
    #if canImport(FoundationNetworking)
      var configuration = CurlTransport.Configuration()
      configuration.trust = trust
      configuration.minimumTLSVersion = .tls12
      let curl = CurlTransport(configuration: configuration)
      _ = curl
    #endif
    #expect(trust.certificateAuthorities == [.file(caFile)])
    #expect(!trust.trustsSystemRoots)
  }
}
