#if canImport(FoundationNetworking)
  import CourierTesting
  import Foundation

  /// `openssl s_server -www` on 127.0.0.1 whose certificate (`IP:127.0.0.1`) is signed by an
  /// authority made for the test: the authority's certificate as PEM and DER, and the pins of
  /// the server's key and of the authority's, as curl's recipe prints them. Call `stop()` when
  /// done.
  final class ChainTLSServer: @unchecked Sendable {
    // `@unchecked Sendable`: every property is set in `init` and never changed.
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

    /// A server, listening (made on a thread of its own: it waits for child processes).
    static func start() async throws -> ChainTLSServer {
      try await TLSTestServer.onThread { try ChainTLSServer() }
    }

    private init() throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "courier-chain-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      authority = directory.appendingPathComponent("ca.pem")
      let script = """
        cd '\(directory.path)' &&
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
          -subj /CN=courier-trust-ca -keyout ca.key -out ca.pem &&
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 -keyout server.key \
          -out server.csr &&
        printf 'subjectAltName=IP:127.0.0.1' > server.ext &&
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 \
          -extfile server.ext -out server.pem &&
        openssl x509 -in ca.pem -outform der -out ca.der
        """
      _ = try TLSTestServer.shell("(\(script)) >/dev/null 2>&1")
      authorityDER = try Data(contentsOf: directory.appendingPathComponent("ca.der"))
      let path = directory.path
      func pin(_ certificate: String) throws -> String {
        String(
          decoding: try TLSTestServer.shell(
            "openssl x509 -in '\(path)/\(certificate)' -pubkey -noout"
              + " | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"),
          as: UTF8.self
        ).trimmingCharacters(in: .whitespacesAndNewlines)
      }
      leafPin = try pin("server.pem")
      authorityPin = try pin("ca.pem")
      guard leafPin.count == 44, authorityPin.count == 44 else {
        throw CocoaError(.fileReadUnknown)
      }
      let folder = directory
      (port, process) = try TLSTestServer.listening { port in
        [
          "-accept", "127.0.0.1:\(port)",
          "-cert", folder.appendingPathComponent("server.pem").path,
          "-key", folder.appendingPathComponent("server.key").path, "-www",
        ]
      }
    }

    var url: URL { URL(string: "https://127.0.0.1:\(port)/")! }

    func stop() {
      process.kill()
      try? FileManager.default.removeItem(at: directory)
    }
  }
#endif
