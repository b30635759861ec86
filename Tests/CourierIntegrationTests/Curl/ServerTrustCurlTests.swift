#if canImport(FoundationNetworking)
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// A ``ServerTrust`` on CurlTransport, against `openssl s_server` with a certificate signed by
  /// the test's own authority: the authority from a file, as PEM data or as DER, the system's
  /// roots beside it or not, pins of the leaf's key; and bad input refused before anything is
  /// sent.
  @Suite("ServerTrust over CurlTransport", .timeLimit(.minutes(1)))
  struct ServerTrustCurlTests {
    private func send(_ trust: ServerTrust?, to url: URL) async throws -> Int {
      try await CurlTransport(trust: trust).send(URLRequest(url: url)).status
    }

    @Test("the authority trusts its server from a file, PEM data or DER; without it, refused")
    func authorities() async throws {
      let server = try await ChainTLSServer.start()
      defer { server.stop() }
      let pem = try Data(contentsOf: server.authority)
      for certificates in [ServerTrust.Certificates.file(server.authority), .data(pem)] {
        #expect(
          try await send(ServerTrust(certificateAuthorities: [certificates]), to: server.url) == 200
        )
      }
      #expect(
        try await send(
          ServerTrust(certificateAuthorities: [.data(server.authorityDER)]), to: server.url)
          == 200)
      for trust in [nil, ServerTrust(pinnedPublicKeys: [server.leafPin])] {
        let error = await #expect(throws: HTTPError.self) {
          _ = try await send(trust, to: server.url)
        }
        #expect(error?.urlErrorCode == .serverCertificateUntrusted)
      }
    }

    @Test("a refused server's error says why: an unknown authority, another host's name")
    func refusalSaysWhy() async throws {
      let server = try await ChainTLSServer.start()
      defer { server.stop() }
      var byName = try #require(URLComponents(url: server.url, resolvingAgainstBaseURL: false))
      byName.host = "localhost"  // the certificate names 127.0.0.1 only
      let trusted = ServerTrust(certificateAuthorities: [.file(server.authority)])
      let cases: [(ServerTrust?, URL, String)] = [
        (nil, server.url, "issuer certificate"), (trusted, try #require(byName.url), "host name"),
      ]
      for (trust, url, why) in cases {
        let error = await #expect(throws: HTTPError.self) { _ = try await send(trust, to: url) }
        #expect(error?.urlErrorCode == .serverCertificateUntrusted)
        let text = "\(String(describing: error))"
        #expect(text.contains(why), "\(text)")
      }
      // The good path beside them: the same server, trusted and by its name, answers.
      #expect(try await send(trusted, to: server.url) == 200)
    }

    @Test("another authority alone is refused; beside the system's roots, those still count")
    func systemRoots() async throws {
      let server = try await ChainTLSServer.start()
      defer { server.stop() }
      let other = try await TLSTestServer.start()
      defer { other.stop() }
      // The system's roots pretend to hold the test's authority: as a directory of hashed
      // roots, or (where there is none) as a bundle.
      let directory = server.directory.appendingPathComponent("system-roots")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        at: server.authority, to: directory.appendingPathComponent("authority.pem"))
      _ = try await ChildProcess.shell("openssl rehash '\(directory.path)' 2>&1")
      let bundle = try Data(contentsOf: server.authority)
      func transport(trustsSystemRoots: Bool, directory: String?) -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        configuration.trust = ServerTrust(
          certificateAuthorities: [.file(other.certificate)], trustsSystemRoots: trustsSystemRoots)
        return CurlTransport(
          settings: CurlTransport.Settings(
            configuration, systemDirectory: directory, systemBundle: bundle))
      }
      for system in [directory.path, nil] {
        let alongside = transport(trustsSystemRoots: true, directory: system)
        #expect(try await alongside.send(URLRequest(url: server.url)).status == 200)
        // Yours are trusted either way.
        #expect(try await alongside.send(URLRequest(url: other.url)).status == 200)
        let error = await #expect(throws: HTTPError.self) {
          _ = try await transport(trustsSystemRoots: false, directory: system)
            .send(URLRequest(url: server.url))
        }
        #expect(error?.urlErrorCode == .serverCertificateUntrusted)
      }
    }

    @Test("as a hurried user: one pinned client shared by many tasks, one cancelled, never closed")
    func sharedByManyTasks() async throws {
      let server = try await ChainTLSServer.start()
      defer { server.stop() }
      let trusted = ServerTrust(
        certificateAuthorities: [.file(server.authority)], pinnedPublicKeys: [server.leafPin])
      let client = HTTPClient(baseURL: server.url, transport: CurlTransport(trust: trusted))
      let cancelled = Task { try await client.send(Request<Data>(path: "")) }
      cancelled.cancel()
      try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<6 {
          group.addTask { try await client.response(for: Request<Data>(path: "")).response.status }
        }
        for try await status in group { #expect(status == 200) }
      }
      if case .failure(let error) = await cancelled.result {
        #expect(error as? HTTPError == .cancelled)
      }
      // Another client, whose pin is not the server's: every task is refused, none let through.
      let wrong = ServerTrust(
        certificateAuthorities: [.file(server.authority)], pinnedPublicKeys: [server.authorityPin])
      let refusing = HTTPClient(baseURL: server.url, transport: CurlTransport(trust: wrong))
      await withTaskGroup(of: URLError.Code?.self) { group in
        for _ in 0..<4 {
          group.addTask {
            do throws(HTTPError) {
              _ = try await refusing.send(Request<Data>(path: ""))
              return nil
            } catch {
              return error.urlErrorCode
            }
          }
        }
        for await code in group { #expect(code == .serverCertificateUntrusted) }
      }
    }

    @Test("the leaf's pin lets its server through; another key, or the authority's, is refused")
    func pins() async throws {
      let server = try await ChainTLSServer.start()
      defer { server.stop() }
      let authority = ServerTrust.Certificates.file(server.authority)
      let other = Data(repeating: 7, count: 32).base64EncodedString()
      for accepted in [[server.leafPin], [other, "sha256//\(server.leafPin)"]] {
        let trust = ServerTrust(certificateAuthorities: [authority], pinnedPublicKeys: accepted)
        #expect(try await send(trust, to: server.url) == 200, "\(accepted)")
      }
      // Only the server's own certificate is matched, as curl does: the authority's key is not
      // the server's.
      for refused in [[other], [server.authorityPin]] {
        let trust = ServerTrust(certificateAuthorities: [authority], pinnedPublicKeys: refused)
        let error = await #expect(throws: HTTPError.self) {
          _ = try await send(trust, to: server.url)
        }
        #expect(error?.urlErrorCode == .serverCertificateUntrusted, "\(refused)")
      }
    }

    @Test("a trust that cannot be used fails the request before anything is sent; a good one works")
    func badInput() async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      let chain = try await ChainTLSServer.start()
      defer { chain.stop() }
      let good = ServerTrust(
        certificateAuthorities: [.file(chain.authority)], pinnedPublicKeys: [chain.leafPin])
      #expect(
        try await CurlTransport(trust: good).send(URLRequest(url: server.baseURL)).status == 200)
      let cases: [(ServerTrust, String)] = [
        (
          ServerTrust(certificateAuthorities: [.file(URL(fileURLWithPath: "/nonexistent/ca.pem"))]),
          "/nonexistent/ca.pem"
        ),
        (
          ServerTrust(certificateAuthorities: [.data(Data("not a certificate".utf8))]),
          "neither PEM nor"
        ),
        (
          ServerTrust(certificateAuthorities: [
            .data(Data("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8))
          ]),
          "no PEM certificate"
        ),
        (ServerTrust(pinnedPublicKeys: ["not base64!"]), "not base64!"),
        (ServerTrust(pinnedPublicKeys: [Data(count: 20).base64EncodedString()]), "SHA-256"),
      ]
      for (trust, reason) in cases {
        let error = await #expect(throws: HTTPError.self) {
          _ = try await CurlTransport(trust: trust).send(URLRequest(url: server.baseURL))
        }
        #expect(
          error?.invalidRequestReason?.contains(reason) == true,
          "\(reason): \(String(describing: error))")
      }
      #expect(server.requestCount == 1)
    }
  }
#endif
