#if canImport(FoundationNetworking)
  import CourierTesting
  import Foundation

  /// `openssl s_server -Verify 1 -www` on 127.0.0.1: a server that asks every client for a
  /// certificate signed by the test's own authority and refuses a client without one. Made
  /// with the authority, the server's certificate (`IP:127.0.0.1`), and a client identity:
  /// a PEM certificate and a key encrypted with ``passphrase``, and the same as PKCS#12.
  /// Call `stop()` when done.
  final class MutualTLSServer: @unchecked Sendable {
    // `@unchecked Sendable`: every property is set in `init` and never changed.
    let directory: URL
    let authority: URL
    let clientCertificate: URL
    let clientKey: URL
    let clientBundle: Data
    let passphrase = "courier-key-secret"
    let port: Int
    private let process: ChildProcess

    /// A server, listening (made on a thread of its own: it waits for child processes).
    static func start(minimumProtocol: String? = nil) async throws -> MutualTLSServer {
      try await TLSTestServer.onThread { try MutualTLSServer(minimumProtocol) }
    }

    private init(_ minimumProtocol: String?) throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "courier-mtls-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      let path = directory.path
      authority = directory.appendingPathComponent("ca.pem")
      clientCertificate = directory.appendingPathComponent("client.pem")
      clientKey = directory.appendingPathComponent("client.key")
      let script = """
        cd '\(path)' &&
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=courier-test-ca \
          -keyout ca.key -out ca.pem &&
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 -keyout server.key \
          -out server.csr &&
        printf 'subjectAltName=IP:127.0.0.1' > server.ext &&
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 \
          -extfile server.ext -out server.pem &&
        openssl req -newkey rsa:2048 -subj /CN=courier-client -passout pass:\(passphrase) \
          -keyout client.key -out client.csr &&
        openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 \
          -out client.pem &&
        openssl pkcs12 -export -in client.pem -inkey client.key -passin pass:\(passphrase) \
          -passout pass:\(passphrase) -out client.p12
        """
      _ = try TLSTestServer.shell("(\(script)) >/dev/null 2>&1")
      clientBundle = try Data(contentsOf: directory.appendingPathComponent("client.p12"))
      let directory = self.directory
      (port, process) = try TLSTestServer.listening { port in
        [
          "-accept", "127.0.0.1:\(port)",
          "-cert", directory.appendingPathComponent("server.pem").path,
          "-key", directory.appendingPathComponent("server.key").path,
          "-CAfile", directory.appendingPathComponent("ca.pem").path, "-Verify", "1", "-www",
        ] + (minimumProtocol.map { ["-\($0)"] } ?? [])
      }
    }

    var url: URL { URL(string: "https://127.0.0.1:\(port)/")! }

    func stop() {
      process.kill()
      try? FileManager.default.removeItem(at: directory)
    }
  }
#endif
