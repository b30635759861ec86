#if canImport(FoundationNetworking)
  import Foundation

  /// A TLS front for a loopback server: accepts TLS with a self-signed certificate
  /// (``TestCertificates/selfSigned``) and relays the bytes, both ways, to `upstream` over
  /// plain TCP. For `wss` tests, whose upgrade and frames must pass through TLS untouched.
  final class TLSRelay: Sendable {
    let directory: URL
    let certificate: URL
    private let relay: PythonRelay

    var port: Int { relay.port }

    private static let script = """
      context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
      context.load_cert_chain(sys.argv[1], sys.argv[2])
      def serve(client):
          try:
              secure = context.wrap_socket(client, server_side=True)
          except (OSError, ssl.SSLError):
              client.close()
              return
          relay(secure, int(sys.argv[3]))
      """

    static func start(upstream: Int) async throws -> TLSRelay {
      let directory = try await TestCertificates.selfSigned.install("courier-relay")
      let certificate = directory.appendingPathComponent("cert.pem")
      let key = directory.appendingPathComponent("key.pem")
      do {
        let relay = try await PythonRelay.start(
          script, arguments: [certificate.path, key.path, "\(upstream)"])
        return TLSRelay(directory: directory, certificate: certificate, relay: relay)
      } catch {
        try? FileManager.default.removeItem(at: directory)
        throw error
      }
    }

    private init(directory: URL, certificate: URL, relay: PythonRelay) {
      self.directory = directory
      self.certificate = certificate
      self.relay = relay
    }

    /// Ends the relay and deletes its certificate.
    func stop() {
      relay.stop()
      try? FileManager.default.removeItem(at: directory)
    }
  }
#endif
