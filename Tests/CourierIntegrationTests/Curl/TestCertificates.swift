#if canImport(FoundationNetworking)
  import CourierTestSupport
  import Foundation

  /// The keys and certificates the TLS test servers serve, each kind made with `openssl` once
  /// per process (the first time a test asks for it) and copied into each server's own
  /// directory. No test needs a certificate no other test has: each trusts, pins or refuses
  /// the one its own server serves, and tests that compare two servers use two kinds.
  struct TestCertificates: Sendable {
    /// The files made, by name (`cert.pem`, `ca.pem` …).
    let files: [String: Data]
    /// The pins of the certificates named, as pinning takes them: the SHA-256 hash of the
    /// certificate's public key, base64, by the certificate's file name.
    let pins: [String: String]

    /// A self-signed certificate for `IP:127.0.0.1`, valid for a day: `cert.pem`, its key
    /// `key.pem`, and the pin of `cert.pem`.
    static var selfSigned: TestCertificates {
      get async throws { try await madeSelfSigned.value }
    }

    /// An authority (`ca.pem`, also as `ca.der`) and the server's certificate it signed for
    /// `IP:127.0.0.1` (`server.pem`, key `server.key`), with the pins of both.
    static var chain: TestCertificates {
      get async throws { try await madeChain.value }
    }

    /// An authority (`ca.pem`), the server's certificate it signed (`server.pem`, key
    /// `server.key`), and a client's (`client.pem`, its RSA key `client.key` encrypted with
    /// `passphrase`, and both as PKCS#12 in `client.p12`).
    static var mutual: TestCertificates {
      get async throws { try await madeMutual.value }
    }

    /// The passphrase of the mutual-TLS client's key and bundle.
    static let passphrase = "courier-key-secret"

    /// A new directory in the temporary one, named `prefix` and a UUID, holding every file
    /// (written on a thread of its own: a file written is synced, which can take long on a
    /// busy disk). Whoever asked deletes it.
    func install(_ prefix: String) async throws -> URL {
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "\(prefix)-\(UUID().uuidString)")
      let files = files
      try await onOwnThread {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, bytes) in files { try bytes.write(to: directory.appendingPathComponent(name)) }
      }
      return directory
    }

    private static let madeSelfSigned = Task {
      try await make(
        """
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
          -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout key.pem -out cert.pem
        """, files: ["cert.pem", "key.pem"], pinning: ["cert.pem"])
    }

    private static let madeChain = Task {
      try await make(
        caAndServer(ca: "courier-trust-ca") + """
           &&
          openssl x509 -in ca.pem -outform der -out ca.der
          """, files: ["ca.pem", "ca.der", "server.pem", "server.key"],
        pinning: ["server.pem", "ca.pem"])
    }

    /// A P-256 certificate authority named `ca` (`ca.pem`, `ca.key`) and a server certificate
    /// for 127.0.0.1 that it signed (`server.pem`, `server.key`).
    private static func caAndServer(ca: String) -> String {
      """
      openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
        -subj /CN=\(ca) -keyout ca.key -out ca.pem &&
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
        -keyout server.key -out server.csr &&
      printf 'subjectAltName=IP:127.0.0.1' > server.ext &&
      openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 \
        -extfile server.ext -out server.pem
      """
    }

    /// The client's key is RSA, the common case; the others P-256 (quicker to make).
    private static let madeMutual = Task {
      try await make(
        caAndServer(ca: "courier-test-ca") + """
             &&
          openssl req -newkey rsa:2048 -subj /CN=courier-client -passout pass:\(passphrase) \
            -keyout client.key -out client.csr &&
          openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 \
            -out client.pem &&
          openssl pkcs12 -export -in client.pem -inkey client.key -passin pass:\(passphrase) \
            -passout pass:\(passphrase) -out client.p12
          """,
        files: ["ca.pem", "server.pem", "server.key", "client.pem", "client.key", "client.p12"],
        pinning: [])
    }

    /// Runs `script` (`sh`, with `openssl`) in a directory of its own, and keeps `files` and
    /// the pins of the certificates in `pinning`.
    static func make(_ script: String, files: [String], pinning: [String]) async throws
      -> TestCertificates
    {
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "courier-certificates-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: directory) }
      _ = try await ChildProcess.shell("cd '\(directory.path)' && (\(script)) >/dev/null 2>&1")
      var made: [String: Data] = [:]
      for name in files {
        made[name] = try Data(contentsOf: directory.appendingPathComponent(name))
      }
      var pins: [String: String] = [:]
      for name in pinning {
        let pin = String(
          decoding: try await ChildProcess.shell(
            "openssl x509 -in '\(directory.appendingPathComponent(name).path)' -pubkey -noout"
              + " | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"),
          as: UTF8.self
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        guard pin.count == 44 else { throw CocoaError(.fileReadUnknown) }
        pins[name] = pin
      }
      return TestCertificates(files: made, pins: pins)
    }
  }
#endif
