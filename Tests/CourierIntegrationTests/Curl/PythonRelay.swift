#if canImport(FoundationNetworking)
  import CourierTestSupport
  import Foundation
  import Glibc

  /// A relay written in Python's standard library, run as a child process: it listens on a
  /// port of its own on 127.0.0.1, prints it, and for each connection runs the script's
  /// `serve(client)`, which usually ends by piping bytes both ways with `pump` to the
  /// loopback server at `upstream`. ``TLSRelay`` and ``ScriptedProxy`` are such scripts.
  final class PythonRelay: @unchecked Sendable {
    // `@unchecked Sendable`: every property is set in `init` and never changed.
    let port: Int
    private let process: ChildProcess

    /// What every relay script starts with: the listener and `pump`, which copies one
    /// socket's bytes to another until either ends, then shuts both down.
    private static let prelude = """
      import socket, ssl, sys, threading
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
      def relay(client, upstream, rest=b""):
          origin = socket.create_connection(("127.0.0.1", upstream))
          if rest:
              origin.sendall(rest)
          threading.Thread(target=pump, args=(client, origin), daemon=True).start()
          pump(origin, client)

      """

    private static let listen = """

      listener = socket.socket()
      listener.bind(("127.0.0.1", 0))
      listener.listen(64)
      print(listener.getsockname()[1], flush=True)
      while True:
          connection, _ = listener.accept()
          threading.Thread(target=serve, args=(connection,), daemon=True).start()
      """

    /// Starts `script` (which defines `serve(client)`, reading its settings from
    /// `sys.argv[1...]`, given as `arguments`) and waits for its port, on a thread of its own.
    static func start(_ script: String, arguments: [String]) async throws -> PythonRelay {
      try await onOwnThread { try PythonRelay(script, arguments: arguments) }
    }

    private init(_ script: String, arguments: [String]) throws {
      process = try ChildProcess.spawn(
        ["python3", "-c", Self.prelude + script + Self.listen] + arguments)
      var seen = Data()
      while !seen.contains(UInt8(ascii: "\n")) {
        let chunk = ChildProcess.read(process.output)
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

    /// Ends the relay.
    func stop() {
      process.kill()
    }
  }
#endif
