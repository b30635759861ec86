#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// Transports in one process, and clients given none (which share the process's), never
  /// take each other's connections: a connection a transport trusting a private authority
  /// made is not handed to one that trusts the system's roots only, nor one that presented a
  /// client certificate to one that has none. Each ``CurlTransport`` has a connection pool
  /// of its own; these hold it, against keep-alive TLS servers that would let a connection be
  /// reused.
  @Suite("Transports never share connections", .timeLimit(.minutes(1)))
  struct TransportIsolationTests {
    /// A keep-alive TLS front to `upstream` with the tests' mutual-TLS certificates: the
    /// server's (`IP:127.0.0.1`), and a client certificate asked of every client when
    /// `asksForClient`.
    private final class Front: Sendable {
      let directory: URL
      let relay: PythonRelay
      var url: URL { URL(string: "https://127.0.0.1:\(relay.port)/")! }
      var authority: URL { directory.appendingPathComponent("ca.pem") }
      var identity: ClientIdentity {
        .pem(
          certificate: directory.appendingPathComponent("client.pem"),
          key: directory.appendingPathComponent("client.key"),
          passphrase: TestCertificates.passphrase)
      }

      private static let script = """
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        if sys.argv[4] == "1":
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(sys.argv[3])
        def serve(client):
            try:
                secure = context.wrap_socket(client, server_side=True)
            except (OSError, ssl.SSLError):
                client.close()
                return
            relay(secure, int(sys.argv[5]))
        """

      init(upstream: Int, asksForClient: Bool) async throws {
        let directory = try await TestCertificates.mutual.install("courier-isolation")
        self.directory = directory
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        do {
          relay = try await PythonRelay.start(
            Self.script,
            arguments: [
              path("server.pem"), path("server.key"), path("ca.pem"), asksForClient ? "1" : "0",
              "\(upstream)",
            ])
        } catch {
          try? FileManager.default.removeItem(at: directory)
          throw error
        }
      }

      func stop() {
        relay.stop()
        try? FileManager.default.removeItem(at: directory)
      }
    }

    private func echo() throws -> LoopbackServer {
      try LoopbackServer { request, response in try await response.send(text: request.path) }
    }

    private func transport(trusting authority: URL?, identity: ClientIdentity? = nil)
      -> CurlTransport
    {
      var configuration = CurlTransport.Configuration()
      configuration.trust = authority.map { ServerTrust(certificateAuthorities: [.file($0)]) }
      configuration.clientIdentity = identity
      return CurlTransport(configuration: configuration)
    }

    @Test("a lax transport's connection is never handed to a strict one, nor to a shared client")
    func trust() async throws {
      let server = try echo()
      defer { server.stop() }
      let front = try await Front(upstream: server.port, asksForClient: false)
      defer { front.stop() }
      let lax = HTTPClient(baseURL: front.url, transport: transport(trusting: front.authority))
      #expect(try await lax.send(Request<String>(path: "a")) == "/a")
      #expect(try await lax.send(Request<String>(path: "b")) == "/b")
      #expect(server.connectionCount == 1)  // kept, and reusable
      let strict = HTTPClient(baseURL: front.url, transport: transport(trusting: nil))
      let shared = HTTPClient(baseURL: front.url)
      for client in [strict, shared] {
        let error = await #expect(throws: HTTPError.self) {
          try await client.send(Request<String>(path: "c"))
        }
        #expect(error?.urlErrorCode == .serverCertificateUntrusted, "\(String(describing: error))")
      }
      // The lax one still has its connection.
      #expect(try await lax.send(Request<String>(path: "d")) == "/d")
      #expect(server.connectionCount == 1)
      #expect(server.requestCount == 3)
    }

    @Test("a connection that presented a client certificate is never used by a transport without")
    func identity() async throws {
      let server = try echo()
      defer { server.stop() }
      let front = try await Front(upstream: server.port, asksForClient: true)
      defer { front.stop() }
      let presenting = HTTPClient(
        baseURL: front.url,
        transport: transport(trusting: front.authority, identity: front.identity))
      #expect(try await presenting.send(Request<String>(path: "a")) == "/a")
      #expect(try await presenting.send(Request<String>(path: "b")) == "/b")
      #expect(server.connectionCount == 1)
      let without = HTTPClient(baseURL: front.url, transport: transport(trusting: front.authority))
      await #expect(throws: HTTPError.self) {
        try await without.send(Request<String>(path: "c"))
      }
      #expect(try await presenting.send(Request<String>(path: "d")) == "/d")
      #expect(server.connectionCount == 1)
      #expect(server.requestCount == 3)
    }
  }
#endif
