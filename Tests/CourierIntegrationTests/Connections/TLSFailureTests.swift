#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// A TLS failure says why, as the same failure does over the other transport: CurlTransport
  /// names libcurl's code and words; FoundationNetworking, under URLSessionTransport, reported
  /// both failures below as `unknown` ("unknown error"), with libcurl's words hidden in the
  /// error's user info.
  @Suite("A TLS failure says why, on both transports", .timeLimit(.minutes(1)))
  struct TLSFailureTests {
    private var transports: [any HTTPTransport] { [CurlTransport(), URLSessionTransport()] }

    /// The error of a GET of `url` over `transport`.
    private func failure(_ url: URL, over transport: any HTTPTransport) async -> HTTPError? {
      await #expect(throws: HTTPError.self) {
        try await HTTPClient(baseURL: url, transport: transport).send(Request<Data>(path: "x"))
      }
    }

    @Test("a server the system's roots do not trust is serverCertificateUntrusted, saying why")
    func untrusted() async throws {
      let server = try await TLSTestServer.start()
      defer { server.stop() }
      for transport in transports {
        let error = await failure(server.url, over: transport)
        let text = "\(type(of: transport)): \(String(describing: error))"
        #expect(error?.urlErrorCode == .serverCertificateUntrusted, "\(text)")
        #expect(text.contains("self-signed certificate"), "\(text)")
        #expect(error.map(RetryPolicy.isTransient) == false, "\(text)")
      }
      // The good path beside it: trusted, the same server answers.
      let trusted = CurlTransport(
        trust: ServerTrust(certificateAuthorities: [.file(server.certificate)]))
      #expect(try await trusted.send(URLRequest(url: server.url)).status == 200)
    }

    @Test("a server that does not speak TLS is secureConnectionFailed, saying why")
    func notTLS() async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "plain") }
      defer { server.stop() }
      let secure = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
      for transport in transports {
        let error = await failure(secure, over: transport)
        let text = "\(type(of: transport)): \(String(describing: error))"
        #expect(error?.urlErrorCode == .secureConnectionFailed, "\(text)")
        #expect(text.contains("wrong version number"), "\(text)")
        // The good path beside it: the same server over plain HTTP answers.
        let client = HTTPClient(baseURL: server.baseURL, transport: transport)
        #expect(try await client.send(Request<String>(path: "x")) == "plain")
      }
    }
  }
#endif
