#if canImport(FoundationNetworking)
  import Foundation
  import Glibc

  /// An HTTP proxy that only tunnels (`CONNECT`), in Python's standard library: whatever
  /// host a client asks for, it connects to 127.0.0.1 at `upstream` and relays the bytes both
  /// ways, recording each `CONNECT` target. For tests of what goes through `https_proxy` and
  /// `http_proxy` tunnels, such as a WebSocket.
  final class ConnectProxy: @unchecked Sendable {
    // `@unchecked Sendable`: every property is set in `init` and never changed.
    let port: Int
    private let process: ChildProcess
    private let log: URL

    static func start(upstream: Int) async throws -> ConnectProxy {
      try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try ConnectProxy(upstream: upstream) }) }
          .start()
      }
    }

    private static let script = """
      import socket, sys, threading
      upstream, log = int(sys.argv[1]), sys.argv[2]
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
          head = b""
          while b"\\r\\n\\r\\n" not in head:
              data = client.recv(4096)
              if not data:
                  client.close()
                  return
              head += data
          line = head.split(b"\\r\\n")[0].decode()
          with open(log, "a") as f:
              f.write(line + "\\n")
          if not line.startswith("CONNECT "):
              client.sendall(b"HTTP/1.1 405 Method Not Allowed\\r\\nContent-Length: 0\\r\\n\\r\\n")
              client.close()
              return
          origin = socket.create_connection(("127.0.0.1", upstream))
          client.sendall(b"HTTP/1.1 200 Connection established\\r\\n\\r\\n")
          rest = head.split(b"\\r\\n\\r\\n", 1)[1]
          if rest:
              origin.sendall(rest)
          threading.Thread(target=pump, args=(client, origin), daemon=True).start()
          pump(origin, client)
      while True:
          connection, _ = listener.accept()
          threading.Thread(target=serve, args=(connection,), daemon=True).start()
      """

    private init(upstream: Int) throws {
      log = FileManager.default.temporaryDirectory.appendingPathComponent(
        "courier-proxy-\(UUID().uuidString).log")
      process = try ChildProcess.spawn(["python3", "-c", Self.script, "\(upstream)", log.path])
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

    /// The request lines the proxy has received, such as `CONNECT host:80 HTTP/1.1`.
    var requestLines: [String] {
      ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(
        String.init)
    }

    /// Ends the proxy and deletes its log.
    func stop() {
      process.kill()
      try? FileManager.default.removeItem(at: log)
    }
  }
#endif
