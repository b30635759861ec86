#if canImport(FoundationNetworking)
  import Foundation

  /// A proxy in a Python script (``PythonRelay``) that sends every connection to the loopback
  /// server at `upstream`, whatever host the client names, and logs what it was asked, one
  /// line each: an HTTP proxy (the request line and its `Proxy-Authorization`), or a SOCKS5
  /// proxy with user and password (the user, the password and the host name it was given).
  final class ScriptedProxy: Sendable {
    private let relay: PythonRelay
    private let log: URL

    var port: Int { relay.port }

    private static let http = """
      def serve(client):
          head = b""
          while b"\\r\\n\\r\\n" not in head:
              data = client.recv(4096)
              if not data:
                  client.close()
                  return
              head += data
          lines = head.split(b"\\r\\n\\r\\n", 1)[0].decode().split("\\r\\n")
          auth = [l.split(":", 1)[1].strip() for l in lines[1:]
                  if l.lower().startswith("proxy-authorization:")]
          with open(sys.argv[2], "a") as log:
              log.write(lines[0] + " | " + (auth[0] if auth else "-") + "\\n")
          if lines[0].startswith("CONNECT "):
              padding = (b"X-Padding: " + b"p" * 1000 + b"\\r\\n") * int(sys.argv[4])
              client.sendall(b"HTTP/1.1 200 Connection established\\r\\n" + padding + b"\\r\\n")
              relay(client, int(sys.argv[1]), head.split(b"\\r\\n\\r\\n", 1)[1])
          else:
              relay(client, int(sys.argv[1]), head)
      """

    private static let socks5 = """
      def exactly(client, count):
          data = b""
          while len(data) < count:
              more = client.recv(count - len(data))
              if not more:
                  raise OSError("closed")
              data += more
          return data
      def serve(client):
          try:
              version, count = exactly(client, 2)
              methods = exactly(client, count)
              if 2 not in methods:
                  client.sendall(b"\\x05\\xff")
                  client.close()
                  return
              client.sendall(b"\\x05\\x02")
              _, length = exactly(client, 2)
              user = exactly(client, length).decode()
              length = exactly(client, 1)[0]
              password = exactly(client, length).decode()
              if sys.argv[3] != "-" and password != sys.argv[3]:
                  client.sendall(b"\\x01\\x01")
                  client.close()
                  return
              client.sendall(b"\\x01\\x00")
              _, command, _, kind = exactly(client, 4)
              if kind == 3:
                  target = exactly(client, exactly(client, 1)[0]).decode()
              elif kind == 1:
                  target = ".".join(str(b) for b in exactly(client, 4))
              else:
                  target = "ipv6"
                  exactly(client, 16)
              port = int.from_bytes(exactly(client, 2), "big")
              with open(sys.argv[2], "a") as log:
                  log.write("%s %s %s:%d\\n" % (user, password, target, port))
              reply = int(sys.argv[4])
              client.sendall(b"\\x05" + bytes([reply]) + b"\\x00\\x01\\x7f\\x00\\x00\\x01"
                             + port.to_bytes(2, "big"))
              if reply:
                  client.close()
                  return
              relay(client, int(sys.argv[1]))
          except OSError:
              client.close()
      """

    /// An HTTP proxy to `upstream`, whose answer to `CONNECT` carries `padding` fields of a
    /// kilobyte each.
    static func http(upstream: Int, padding: Int = 0) async throws -> ScriptedProxy {
      try await start(http, upstream: upstream, extra: ["-", "\(padding)"])
    }

    /// A SOCKS5 proxy to `upstream` that asks for a user and password: any are taken, or only
    /// `password` when given. It answers each `CONNECT` with `reply` (RFC 1928 §6: 0 succeeded,
    /// 2 not allowed by its rules, 4 host unreachable…), closing the connection on any other.
    static func socks5(upstream: Int, password: String? = nil, reply: UInt8 = 0) async throws
      -> ScriptedProxy
    {
      try await start(socks5, upstream: upstream, extra: [password ?? "-", "\(reply)"])
    }

    private static func start(_ script: String, upstream: Int, extra: [String] = ["-", "0"])
      async throws -> ScriptedProxy
    {
      let log = FileManager.default.temporaryDirectory.appendingPathComponent(
        "courier-proxy-\(UUID().uuidString).log")
      _ = FileManager.default.createFile(atPath: log.path, contents: nil)
      let relay = try await PythonRelay.start(
        script, arguments: ["\(upstream)", log.path] + extra)
      return ScriptedProxy(relay: relay, log: log)
    }

    private init(relay: PythonRelay, log: URL) {
      self.relay = relay
      self.log = log
    }

    /// What the proxy was asked, one line per connection or request.
    var lines: [String] {
      ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(
        String.init)
    }

    func stop() {
      relay.stop()
      try? FileManager.default.removeItem(at: log)
    }
  }
#endif
