#if canImport(FoundationNetworking)
  import Foundation

  /// `openssl s_server -www` on 127.0.0.1 whose certificate (`IP:127.0.0.1`) is signed by an
  /// authority made for the tests (``TestCertificates/chain``): the authority's certificate
  /// as PEM and DER, and the pins of the server's key and of the authority's, as curl's recipe
  /// prints them. Call `stop()` when done.
  final class ChainTLSServer: Sendable {
    let directory: URL
    /// The authority's certificate, PEM.
    let authority: URL
    /// The same certificate, DER.
    let authorityDER: Data
    /// The pin of the server's own key (the leaf's).
    let leafPin: String
    /// The pin of the authority's key.
    let authorityPin: String
    let port: Int
    private let process: ChildProcess

    /// A server, listening.
    static func start() async throws -> ChainTLSServer {
      let made = try await TestCertificates.chain
      let directory = try await made.install("courier-chain")
      do {
        let (port, process) = try await TLSTestServer.listening { port in
          [
            "-accept", "127.0.0.1:\(port)",
            "-cert", directory.appendingPathComponent("server.pem").path,
            "-key", directory.appendingPathComponent("server.key").path, "-www",
          ]
        }
        return ChainTLSServer(
          directory: directory, authorityDER: made.files["ca.der"] ?? Data(),
          leafPin: made.pins["server.pem"] ?? "", authorityPin: made.pins["ca.pem"] ?? "",
          port: port, process: process)
      } catch {
        try? FileManager.default.removeItem(at: directory)
        throw error
      }
    }

    private init(
      directory: URL, authorityDER: Data, leafPin: String, authorityPin: String, port: Int,
      process: ChildProcess
    ) {
      self.directory = directory
      authority = directory.appendingPathComponent("ca.pem")
      self.authorityDER = authorityDER
      self.leafPin = leafPin
      self.authorityPin = authorityPin
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
