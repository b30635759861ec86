#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation

  /// An HTTPS server on 127.0.0.1 for CurlTransport's TLS tests: `openssl s_server -www`
  /// with a self-signed certificate (``TestCertificates/selfSigned``, for `IP:127.0.0.1`). It
  /// answers `GET /` with a status page. Call `stop()` when done.
  final class TLSTestServer: Sendable {
    let directory: URL
    let certificate: URL
    let port: Int
    private let process: ChildProcess

    /// A server, listening.
    static func start() async throws -> TLSTestServer {
      let directory = try await TestCertificates.selfSigned.install("courier-tls")
      let certificate = directory.appendingPathComponent("cert.pem")
      let key = directory.appendingPathComponent("key.pem")
      do {
        let (port, process) = try await listening { port in
          ["-accept", "127.0.0.1:\(port)", "-cert", certificate.path, "-key", key.path, "-www"]
        }
        return TLSTestServer(
          directory: directory, certificate: certificate, port: port, process: process)
      } catch {
        try? FileManager.default.removeItem(at: directory)
        throw error
      }
    }

    private init(directory: URL, certificate: URL, port: Int, process: ChildProcess) {
      self.directory = directory
      self.certificate = certificate
      self.port = port
      self.process = process
    }

    /// `openssl s_server` with `arguments(port)`, once it listens on a port the OS had free a
    /// moment ago (a loopback server takes one and lets it go). Another test may take it
    /// before s_server binds it (seen once in 50 loaded runs), so s_server is started again
    /// on another port until it listens. Waited for on a thread of its own.
    static func listening(_ arguments: @escaping @Sendable (_ port: Int) -> [String])
      async throws -> (port: Int, process: ChildProcess)
    {
      try await onOwnThread {
        for _ in 0..<5 {
          let probe = try LoopbackServer { _, _ in }
          let port = probe.port
          probe.stop()
          // Line-buffered, so that "ACCEPT" reaches the pipe as soon as it is printed.
          let process = try ChildProcess.spawn(
            ["stdbuf", "-oL", "openssl", "s_server"] + arguments(port))
          // s_server prints "ACCEPT" once it listens, and ends at once when it cannot bind.
          var seen = Data()
          while !String(decoding: seen, as: UTF8.self).contains("ACCEPT") {
            let chunk = ChildProcess.read(process.output)
            guard !chunk.isEmpty else { break }
            seen.append(chunk)
          }
          if String(decoding: seen, as: UTF8.self).contains("ACCEPT") { return (port, process) }
          process.kill()
        }
        throw CocoaError(.fileReadUnknown)
      }
    }

    var url: URL { URL(string: "https://127.0.0.1:\(port)/")! }

    /// Ends the server. (SIGKILL: s_server was seen to outlive SIGTERM.)
    func stop() {
      process.kill()
      try? FileManager.default.removeItem(at: directory)
    }
  }
#endif
