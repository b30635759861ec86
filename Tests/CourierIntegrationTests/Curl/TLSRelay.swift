#if canImport(FoundationNetworking)
  import CourierTesting
  import Foundation
  import Glibc

  /// A TLS front for a loopback server: Python's `ssl` module (standard library) accepts TLS
  /// on a port of its own with a fresh self-signed certificate and relays the bytes, both
  /// ways, to `upstream` over plain TCP. For `wss` tests, whose upgrade and frames must pass
  /// through TLS untouched.
  final class TLSRelay: @unchecked Sendable {
    // `@unchecked Sendable`: every property is set in `init` and never changed.
    let directory: URL
    let certificate: URL
    let port: Int
    private let process: ChildProcess

    static func start(upstream: Int) async throws -> TLSRelay {
      try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try TLSRelay(upstream: upstream) }) }.start()
      }
    }

    private static let script = """
      import socket, ssl, sys, threading
      certificate, key, upstream = sys.argv[1], sys.argv[2], int(sys.argv[3])
      context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
      context.load_cert_chain(certificate, key)
      listener = socket.socket()
      listener.bind(("127.0.0.1", 0))
      listener.listen(64)
      print(listener.getsockname()[1], flush=True)
      def pump(source, target):
          try:
              while True:
                  data = source.recv(65536)
                  if not data:
                      break
                  target.sendall(data)
          except OSError:
              pass
          for end in (source, target):
              try:
                  end.shutdown(socket.SHUT_RDWR)
              except OSError:
                  pass
      def serve(client):
          try:
              secure = context.wrap_socket(client, server_side=True)
          except (OSError, ssl.SSLError):
              client.close()
              return
          origin = socket.create_connection(("127.0.0.1", upstream))
          threading.Thread(target=pump, args=(secure, origin), daemon=True).start()
          pump(origin, secure)
      while True:
          connection, _ = listener.accept()
          threading.Thread(target=serve, args=(connection,), daemon=True).start()
      """

    private init(upstream: Int) throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "courier-relay-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      let key: URL
      (certificate, key) = try TLSTestServer.makeCertificate(in: directory)
      process = try ChildProcess.spawn([
        "python3", "-c", Self.script, certificate.path, key.path, "\(upstream)",
      ])
      var seen = Data()
      while !seen.contains(UInt8(ascii: "\n")) {
        let chunk = TLSTestServer.read(process.output)
        guard !chunk.isEmpty else {
          process.kill()
          throw CocoaError(.fileReadUnknown)
        }
        seen.append(chunk)
      }
      guard
        let port = Int(
          String(decoding: seen, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
      else {
        process.kill()
        throw CocoaError(.fileReadCorruptFile)
      }
      self.port = port
    }

    /// Ends the relay and deletes its certificate.
    func stop() {
      process.kill()
      try? FileManager.default.removeItem(at: directory)
    }
  }
#endif
