#if canImport(FoundationNetworking)
  import Courier
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import Testing

  /// A server whose certificate does not chain to a trusted root, reached with no
  /// ``ServerTrust``: `transport(serverCertificateUntrusted)` saying why, on every transport, as
  /// on Apple platforms. FoundationNetworking reported it as `URLError.unknown`, with libcurl's
  /// words, where CurlTransport said `serverCertificateUntrusted`.
  @Suite("A server the system does not trust", .timeLimit(.minutes(1)))
  struct UntrustedServerTests {
    @Test("is refused with serverCertificateUntrusted, saying why")
    func refused() async throws {
      let server = try await ChainTLSServer.start()
      defer { server.stop() }
      let error = await #expect(throws: HTTPError.self) {
        try await HTTPClient(baseURL: server.url).send(Request<Data>(path: "x"))
      }
      #expect(error?.urlErrorCode == .serverCertificateUntrusted, "\(String(describing: error))")
      #expect("\(String(describing: error))".contains("issuer certificate"))
    }
  }
#endif
