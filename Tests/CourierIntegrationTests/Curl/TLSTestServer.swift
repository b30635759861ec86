#if canImport(FoundationNetworking)
  import CourierTesting
  import Foundation
  import Glibc

  /// An HTTPS server on 127.0.0.1 for CurlTransport's TLS tests: `openssl s_server -www`
  /// with a self-signed certificate made for the test (its subject alternative name is
  /// `IP:127.0.0.1`). It answers `GET /` with a status page. Call `stop()` when done.
  ///
  /// Making one blocks on child processes (``ChildProcess``), so ``start()`` does it on a
  /// thread of its own, never on the cooperative pool.
  final class TLSTestServer: @unchecked Sendable {
    // `@unchecked Sendable`: every property is set in `init` and never changed.
    let directory: URL
    let certificate: URL
    let port: Int
    /// The SHA-256 hash of the certificate's public key, base64, as pinning takes it.
    let publicKeyHash: String
    private let process: ChildProcess

    /// A server, listening.
    static func start() async throws -> TLSTestServer {
      try await onThread { try TLSTestServer() }
    }

    /// What `make` makes, made on a thread of its own (it waits for child processes).
    static func onThread<T: Sendable>(_ make: @escaping @Sendable () throws -> T) async throws -> T
    {
      try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try make() }) }.start()
      }
    }

    private init() throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "courier-tls-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      let key: URL
      (certificate, key) = try Self.makeCertificate(in: directory)
      publicKeyHash = String(
        decoding: try Self.shell(
          "openssl x509 -in '\(certificate.path)' -pubkey -noout | openssl pkey -pubin -outform der"
            + " | openssl dgst -sha256 -binary | base64"), as: UTF8.self
      ).trimmingCharacters(in: .whitespacesAndNewlines)
      guard publicKeyHash.count == 44 else { throw CocoaError(.executableLoad) }
      let certificate = self.certificate
      (port, process) = try Self.listening { port in
        ["-accept", "127.0.0.1:\(port)", "-cert", certificate.path, "-key", key.path, "-www"]
      }
    }

    /// `openssl s_server` with `arguments(port)`, once it listens on a port the OS had free a
    /// moment ago (a loopback server takes one and lets it go). Another test may take it
    /// before s_server binds it (seen once in 50 loaded runs), so s_server is started again
    /// on another port until it listens.
    static func listening(_ arguments: (_ port: Int) -> [String]) throws
      -> (port: Int, process: ChildProcess)
    {
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
          let chunk = Self.read(process.output)
          guard !chunk.isEmpty else { break }
          seen.append(chunk)
        }
        if String(decoding: seen, as: UTF8.self).contains("ACCEPT") { return (port, process) }
        process.kill()
      }
      throw CocoaError(.fileReadUnknown)
    }

    var url: URL { URL(string: "https://127.0.0.1:\(port)/")! }

    /// A self-signed certificate for `IP:127.0.0.1`, valid for a day, and its key, made with
    /// `openssl` in `directory` (on this thread: it waits for the child process).
    static func makeCertificate(in directory: URL) throws -> (certificate: URL, key: URL) {
      let certificate = directory.appendingPathComponent("cert.pem")
      let key = directory.appendingPathComponent("key.pem")
      _ = try shell(
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=127.0.0.1"
          + " -addext subjectAltName=IP:127.0.0.1 -keyout '\(key.path)' -out '\(certificate.path)'"
          + " 2>/dev/null")
      return (certificate, key)
    }

    /// Ends the server. (SIGKILL: s_server was seen to outlive SIGTERM.)
    func stop() {
      process.kill()
      try? FileManager.default.removeItem(at: directory)
    }

    /// What `command` prints, once it has printed everything (`sh -c`, on this thread).
    static func shell(_ command: String, input: Data? = nil) throws -> Data {
      let process = try ChildProcess.spawn(["/bin/sh", "-c", command], input: input != nil)
      defer { process.reap() }
      if let input, let feed = process.input {
        // Fed from another thread, so that a command that writes as it reads cannot block.
        let done = DispatchSemaphore(value: 0)
        Thread {
          Self.write(input, to: feed)
          close(feed)
          done.signal()
        }.start()
        defer { done.wait() }
        return readAll(process.output)
      }
      return readAll(process.output)
    }

    /// Everything `descriptor` gives until its end.
    private static func readAll(_ descriptor: Int32) -> Data {
      var all = Data()
      while true {
        let chunk = read(descriptor)
        if chunk.isEmpty { return all }
        all.append(chunk)
      }
    }

    // POSIX reads and writes that go on after a signal (EINTR: a child exiting), where
    // FileHandle's non-throwing calls trap.

    /// The next bytes of `descriptor`; empty at its end or on an error.
    static func read(_ descriptor: Int32) -> Data {
      var buffer = [UInt8](repeating: 0, count: 64 * 1024)
      while true {
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        if count >= 0 { return Data(buffer[..<count]) }
        if errno != EINTR { return Data() }
      }
    }

    /// Writes all of `data` to `descriptor`, or as much as the reader takes.
    static func write(_ data: Data, to descriptor: Int32) {
      data.withUnsafeBytes { bytes in
        var offset = 0
        while offset < bytes.count {
          let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
          if count > 0 {
            offset += count
          } else if errno != EINTR {
            return
          }
        }
      }
    }
  }
#endif
