#if canImport(FoundationNetworking)
  import Foundation

  /// `openssl s_server -Verify 1 -www` on 127.0.0.1: a server that asks every client for a
  /// certificate signed by the tests' own authority and refuses a client without one. Made
  /// with ``TestCertificates/mutual``: the authority, the server's certificate
  /// (`IP:127.0.0.1`), and a client identity: a PEM certificate and a key encrypted with
  /// ``passphrase``, and the same as PKCS#12. Call `stop()` when done.
  final class MutualTLSServer: Sendable {
    let directory: URL
    let authority: URL
    let clientCertificate: URL
    let clientKey: URL
    let clientBundle: Data
    let passphrase = TestCertificates.passphrase
    let port: Int
    private let process: ChildProcess

    /// A server, listening; `minimumProtocol` is s_server's option for it (`tls1_2`: at
    /// most TLS 1.2), if given.
    static func start(minimumProtocol: String? = nil) async throws -> MutualTLSServer {
      let made = try await TestCertificates.mutual
      let directory = try await made.install("courier-mtls")
      do {
        let (port, process) = try await TLSTestServer.listening { port in
          [
            "-accept", "127.0.0.1:\(port)",
            "-cert", directory.appendingPathComponent("server.pem").path,
            "-key", directory.appendingPathComponent("server.key").path,
            "-CAfile", directory.appendingPathComponent("ca.pem").path, "-Verify", "1", "-www",
          ] + (minimumProtocol.map { ["-\($0)"] } ?? [])
        }
        return MutualTLSServer(
          directory: directory, clientBundle: made.files["client.p12"] ?? Data(), port: port,
          process: process)
      } catch {
        try? FileManager.default.removeItem(at: directory)
        throw error
      }
    }

    private init(directory: URL, clientBundle: Data, port: Int, process: ChildProcess) {
      self.directory = directory
      authority = directory.appendingPathComponent("ca.pem")
      clientCertificate = directory.appendingPathComponent("client.pem")
      clientKey = directory.appendingPathComponent("client.key")
      self.clientBundle = clientBundle
      self.port = port
      self.process = process
    }

    var url: URL { URL(string: "https://127.0.0.1:\(port)/")! }

    func stop() {
      process.kill()
      try? FileManager.default.removeItem(at: directory)
    }
  }
#endif
