#if canImport(FoundationNetworking)
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// Certificates a server check refuses for one reason each, as users meet them: expired, not
  /// yet valid, another host's (an address in the URL, names only in the certificate), and a
  /// chain whose intermediate the server left out. CurlTransport, trusting their authority,
  /// says which check failed; URLSessionTransport, which cannot be given the authority on
  /// Linux, refuses them all as untrusted. Neither ever lets one through.
  @Suite("A server certificate a check refuses says why", .timeLimit(.minutes(1)))
  struct ServerValidityTests {
    /// `openssl s_server` serving `name.pem` (and the intermediate, when `withIntermediate`)
    /// on `port`, from `directory`, which holds the authority (`ca.pem`) too.
    private struct Served {
      let directory: URL
      let port: Int
      let process: ChildProcess

      init(_ name: String, withIntermediate: Bool = false) async throws {
        let directory = try await TestCertificates.validity.install("courier-validity")
        let path: @Sendable (String) -> String = { directory.appendingPathComponent($0).path }
        do {
          (port, process) = try await TLSTestServer.listening { port in
            [
              "-accept", "127.0.0.1:\(port)", "-cert", path("\(name).pem"), "-key",
              path("\(name).key"),
            ]
              + (withIntermediate ? ["-cert_chain", path("intermediate.pem")] : []) + ["-www"]
          }
        } catch {
          try? FileManager.default.removeItem(at: directory)
          throw error
        }
        self.directory = directory
      }

      func url(host: String = "127.0.0.1") -> URL { URL(string: "https://\(host):\(port)/")! }

      func stop() {
        process.kill()
        try? FileManager.default.removeItem(at: directory)
      }
    }

    /// CurlTransport trusting the validity authority in `directory`.
    private func trusting(_ directory: URL) -> CurlTransport {
      CurlTransport(
        trust: ServerTrust(
          certificateAuthorities: [.file(directory.appendingPathComponent("ca.pem"))],
          trustsSystemRoots: false))
    }

    @Test(
      "a certificate expired, not yet valid, another host's, or missing its intermediate is refused, saying why",
      arguments: [
        ("expired", "certificate has expired"), ("future", "certificate is not yet valid"),
        ("named", "no alternative certificate subject name matches target host name '127.0.0.1'"),
        ("leaf", "unable to get local issuer certificate"),
      ])
    func refused(name: String, says: String) async throws {
      let served = try await Served(name)
      defer { served.stop() }
      let url = served.url()
      for transport in [trusting(served.directory) as any HTTPTransport, URLSessionTransport()] {
        let error = await #expect(throws: HTTPError.self) {
          _ = try await transport.send(URLRequest(url: url))
        }
        let text = "\(type(of: transport)): \(String(describing: error))"
        #expect(error?.urlErrorCode == .serverCertificateUntrusted, "\(text)")
        if transport is CurlTransport { #expect(text.contains(says), "\(text)") }
      }
    }

    @Test("the good path beside it: the leaf with its intermediate, the named one by its name")
    func accepted() async throws {
      for (name, withIntermediate, host) in [
        ("leaf", true, "127.0.0.1"), ("named", false, "localhost"),
      ] {
        let served = try await Served(name, withIntermediate: withIntermediate)
        defer { served.stop() }
        let url = served.url(host: host)
        #expect(
          try await trusting(served.directory).send(URLRequest(url: url)).status == 200, "\(name)")
      }
    }
  }
#endif
