#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  @Suite("Mutual TLS over CurlTransport, against openssl s_server -Verify", .timeLimit(.minutes(1)))
  struct MutualTLSTests {
    private func client(_ server: MutualTLSServer, identity: ClientIdentity?) -> HTTPClient {
      var configuration = CurlTransport.Configuration()
      configuration.trust = ServerTrust(certificateAuthorities: [.file(server.authority)])
      configuration.clientIdentity = identity
      return HTTPClient(baseURL: server.url, transport: CurlTransport(configuration: configuration))
    }

    @Test("a PEM identity with an encrypted key, and the same as PKCS#12, are accepted")
    func accepted() async throws {
      let server = try await MutualTLSServer.start()
      defer { server.stop() }
      let identities: [ClientIdentity] = [
        .pem(
          certificate: server.clientCertificate, key: server.clientKey,
          passphrase: server.passphrase),
        .pkcs12(server.clientBundle, passphrase: server.passphrase),
      ]
      for identity in identities {
        let page = try await client(server, identity: identity).send(Request<String>(path: ""))
        // s_server's status page names the client's certificate it verified.
        #expect(page.contains("courier-client"), "\(identity)")
      }
    }

    @Test("without an identity, with the wrong passphrase or another key, the request fails")
    func refused() async throws {
      let server = try await MutualTLSServer.start()
      defer { server.stop() }
      await #expect(throws: HTTPError.self) {
        try await client(server, identity: nil).send(Request<String>(path: ""))
      }
      let wrongOnes: [ClientIdentity] = [
        .pkcs12(server.clientBundle, passphrase: "not-it-SECRET"),
        .pem(
          certificate: server.clientCertificate, key: server.clientKey,
          passphrase: "not-it-SECRET"),
        // A key, not the certificate's: the server's own.
        .pem(
          certificate: server.clientCertificate,
          key: server.directory.appendingPathComponent("server.key")),
      ]
      for wrong in wrongOnes {
        let error = await #expect(throws: HTTPError.self) {
          try await client(server, identity: wrong).send(Request<String>(path: ""))
        }
        #expect(error?.urlErrorCode == .clientCertificateRejected)
        // Said as the client's failure it is, in OpenSSL's words, never with the passphrase.
        let text = "\(String(describing: error)) \(String(reflecting: error))"
        #expect(text.contains("could not be used") && !text.contains("SECRET"), "\(text)")
      }
    }

    @Test("an identity file that cannot be read is refused before anything is sent")
    func missingFile() async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      var configuration = CurlTransport.Configuration()
      configuration.clientIdentity = .pem(
        certificate: URL(fileURLWithPath: "/nonexistent/client.pem"),
        key: URL(fileURLWithPath: "/nonexistent/client.key"))
      let client = HTTPClient(
        baseURL: server.baseURL, transport: CurlTransport(configuration: configuration))
      let error = await #expect(throws: HTTPError.self) {
        try await client.send(Request<String>(path: "x"))
      }
      #expect(error?.invalidRequestReason?.contains("/nonexistent/client.pem") == true)
      #expect(server.requestCount == 0)
    }

    @Test(
      "a PEM identity a user got wrong is refused, naming the file and why; nothing is sent")
    func unusablePEM() async throws {
      let made = try await TestCertificates.mutual
      let directory = try await made.install("courier-pem")
      defer { try? FileManager.default.removeItem(at: directory) }
      let file = { (name: String) in directory.appendingPathComponent(name) }
      let pem = try #require(made.files["client.pem"])
      let der = try #require(ServerTrust.Certificates.pemCertificates(pem)?.first)
      try der.write(to: file("client.der"))
      try Data().write(to: file("empty.pem"))
      try Data(
        "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n".utf8
      )
      .write(to: file("client.csr"))
      try Data(count: ClientIdentity.pemFileLimit + 1).write(to: file("huge.pem"))
      try FileManager.default.createDirectory(at: file("folder"), withIntermediateDirectories: true)
      let (certificate, key) = (file("client.pem"), file("client.key"))
      let secret = TestCertificates.passphrase
      let cases: [(ClientIdentity, [String])] = [
        (
          .pem(certificate: file("client.der"), key: key, passphrase: secret),
          ["client.der", "DER"]
        ),
        (
          .pem(certificate: file("empty.pem"), key: key, passphrase: secret),
          ["empty.pem", "no PEM"]
        ),
        (.pem(certificate: file("client.csr"), key: key, passphrase: secret), ["client.csr"]),
        (.pem(certificate: file("folder"), key: key, passphrase: secret), ["folder", "directory"]),
        (.pem(certificate: file("huge.pem"), key: key, passphrase: secret), ["huge.pem", "1 MiB"]),
        (.pem(certificate: certificate, key: file("ca.pem")), ["ca.pem", "no PEM private key"]),
        (.pem(certificate: certificate, key: URL(fileURLWithPath: "/dev/zero")), ["/dev/zero"]),
        // OpenSSL would ask for the passphrase on the terminal, and the transport wait.
        (.pem(certificate: certificate, key: key), ["client.key", "encrypted"]),
      ]
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      for (identity, words) in cases {
        var configuration = CurlTransport.Configuration()
        configuration.clientIdentity = identity
        let client = HTTPClient(
          baseURL: server.baseURL, transport: CurlTransport(configuration: configuration))
        let error = await #expect(throws: HTTPError.self, "\(identity)") {
          try await client.send(Request<String>(path: "x"))
        }
        let reason = error?.invalidRequestReason ?? ""
        for word in words { #expect(reason.contains(word), "\(reason)") }
        #expect(!"\(String(describing: error))".contains(secret))
      }
      #expect(server.requestCount == 0)
    }

    @Test("a PEM identity through links, and a key stored without encryption, are accepted")
    func linkedAndPlainPEM() async throws {
      let server = try await MutualTLSServer.start()
      defer { server.stop() }
      let file = { (name: String) in server.directory.appendingPathComponent(name) }
      // As a Kubernetes secret is mounted: each file a link to the real one.
      try FileManager.default.createSymbolicLink(
        at: file("linked.pem"), withDestinationURL: server.clientCertificate)
      try FileManager.default.createSymbolicLink(
        at: file("linked.key"), withDestinationURL: server.clientKey)
      _ = try await ChildProcess.shell(
        "openssl pkey -in '\(server.clientKey.path)' -passin pass:\(server.passphrase) "
          + "-out '\(file("plain.key").path)'")
      let identities: [ClientIdentity] = [
        .pem(
          certificate: file("linked.pem"), key: file("linked.key"), passphrase: server.passphrase),
        .pem(certificate: server.clientCertificate, key: file("plain.key")),
      ]
      for identity in identities {
        let page = try await client(server, identity: identity).send(Request<String>(path: ""))
        #expect(page.contains("courier-client"), "\(identity)")
      }
    }

    @Test("a PEM chain with the client's certificate after its issuer's is refused, saying so")
    func chainOutOfOrder() async throws {
      let server = try await MutualTLSServer.start()
      defer { server.stop() }
      let file = { (name: String) in server.directory.appendingPathComponent(name) }
      let (leaf, authority) = (
        try Data(contentsOf: server.clientCertificate), try Data(contentsOf: server.authority)
      )
      try (authority + leaf).write(to: file("issuer-first.pem"))
      let identity = ClientIdentity.pem(
        certificate: file("issuer-first.pem"), key: server.clientKey,
        passphrase: server.passphrase)
      let error = await #expect(throws: HTTPError.self) {
        try await client(server, identity: identity).send(Request<String>(path: ""))
      }
      let reason = error?.invalidRequestReason ?? ""
      #expect(reason.contains("issuer-first.pem") && reason.contains("first"), "\(reason)")
      #expect(!"\(String(describing: error))".contains(server.passphrase))
    }

    @Test("a PEM chain in order, the client's certificate first, is accepted (the good path)")
    func chainInOrder() async throws {
      let server = try await MutualTLSServer.start()
      defer { server.stop() }
      let file = { (name: String) in server.directory.appendingPathComponent(name) }
      let (leaf, authority) = (
        try Data(contentsOf: server.clientCertificate), try Data(contentsOf: server.authority)
      )
      try (leaf + authority).write(to: file("leaf-first.pem"))
      let identity = ClientIdentity.pem(
        certificate: file("leaf-first.pem"), key: server.clientKey,
        passphrase: server.passphrase)
      let page = try await client(server, identity: identity).send(Request<String>(path: ""))
      #expect(page.contains("courier-client"))
    }

    @Test("a minimum of TLS 1.3 refuses a server that offers at most 1.2; 1.2 accepts it")
    func minimumVersion() async throws {
      let server = try await MutualTLSServer.start(minimumProtocol: "tls1_2")
      defer { server.stop() }
      let identity = ClientIdentity.pkcs12(server.clientBundle, passphrase: server.passphrase)
      var configuration = CurlTransport.Configuration()
      configuration.trust = ServerTrust(certificateAuthorities: [.file(server.authority)])
      configuration.clientIdentity = identity
      configuration.minimumTLSVersion = .tls13
      let strict = HTTPClient(
        baseURL: server.url, transport: CurlTransport(configuration: configuration))
      await #expect(throws: HTTPError.self) { try await strict.send(Request<String>(path: "")) }
      configuration.minimumTLSVersion = .tls12
      let lenient = HTTPClient(
        baseURL: server.url, transport: CurlTransport(configuration: configuration))
      #expect(try await lenient.send(Request<String>(path: "")).contains("courier-client"))
    }

    @Test("the passphrase is a credential: no description or dump of the identity shows it")
    func passphraseRedacted() {
      let secret = "hunter2-passphrase"
      let identities: [ClientIdentity] = [
        .pkcs12(Data(count: 10), passphrase: secret),
        .pem(
          certificate: URL(fileURLWithPath: "/c.pem"), key: URL(fileURLWithPath: "/k.pem"),
          passphrase: secret),
      ]
      for identity in identities {
        var dumped = ""
        dump(identity, to: &dumped)
        for text in ["\(identity)", String(reflecting: identity), dumped] {
          #expect(!text.contains(secret), "\(text)")
        }
        #expect("\(identity)".contains("<redacted>"))
      }
    }
  }
#endif
