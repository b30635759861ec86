#if canImport(FoundationNetworking)
  import Foundation

  /// An HTTP proxy that only tunnels (`CONNECT`): whatever host a client asks for, it
  /// connects to 127.0.0.1 at `upstream` and relays the bytes both ways, recording each
  /// request line. For tests of what goes through `https_proxy` and `http_proxy` tunnels,
  /// such as a WebSocket.
  final class ConnectProxy: Sendable {
    private let relay: PythonRelay
    private let log: URL

    var port: Int { relay.port }

    private static let script = """
      def serve(client):
          head = b""
          while b"\\r\\n\\r\\n" not in head:
              data = client.recv(4096)
              if not data:
                  client.close()
                  return
              head += data
          line = head.split(b"\\r\\n")[0].decode()
          with open(sys.argv[2], "a") as log:
              log.write(line + "\\n")
          if not line.startswith("CONNECT "):
              client.sendall(b"HTTP/1.1 405 Method Not Allowed\\r\\nContent-Length: 0\\r\\n\\r\\n")
              client.close()
              return
          client.sendall(b"HTTP/1.1 200 Connection established\\r\\n\\r\\n")
          relay(client, int(sys.argv[1]), head.split(b"\\r\\n\\r\\n", 1)[1])
      """

    static func start(upstream: Int) async throws -> ConnectProxy {
      let log = FileManager.default.temporaryDirectory.appendingPathComponent(
        "courier-proxy-\(UUID().uuidString).log")
      let relay = try await PythonRelay.start(script, arguments: ["\(upstream)", log.path])
      return ConnectProxy(relay: relay, log: log)
    }

    private init(relay: PythonRelay, log: URL) {
      self.relay = relay
      self.log = log
    }

    /// The request lines the proxy has received, such as `CONNECT host:80 HTTP/1.1`.
    var requestLines: [String] {
      ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(
        String.init)
    }

    /// Ends the proxy and deletes its log.
    func stop() {
      relay.stop()
      try? FileManager.default.removeItem(at: log)
    }
  }
#endif
