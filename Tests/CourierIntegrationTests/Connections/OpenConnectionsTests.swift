// The connections are CurlTransport's WebSockets (Linux), which the count reads from /proc.
#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  import Courier

  /// ``OpenConnections`` is what the leak tests count connections with: a count that misses
  /// connections makes every "nothing held" check pass whatever the library holds.
  @Suite("Counting the connections held to a server", .timeLimit(.minutes(1)))
  struct OpenConnectionsTests {
    /// Opens `count` WebSockets to a fresh echo server; returns the connections to its port
    /// counted before and while they are open, then closes them.
    ///
    /// Connections other tests' transports keep to a server of theirs that had the same port
    /// before (closed by that server, not yet by the transport: `CLOSE_WAIT`) count too, and
    /// go at any moment: the count is read against the one before. (Once closed, a socket's
    /// descriptor is let go a moment after `close()` returns, on a loaded machine a few
    /// hundred milliseconds: nothing a test can await says when, so none is counted then.)
    private func counted(opening count: Int) async throws -> (before: Int, open: Int) {
      let server = try LoopbackServer { _, response in
        let socket = try await response.upgradeToWebSocket()
        try await socket.echoUntilClosed()
      }
      defer { server.stop() }
      let client = HTTPClient(
        baseURL: URL(string: "ws://127.0.0.1:\(server.port)")!, transport: CurlTransport())
      let port = UInt16(server.port)
      let before = try #require(OpenConnections.count(toPort: port))
      var sockets: [WebSocket] = []
      for _ in 0..<count { sockets.append(try await client.webSocket(Request<Data>(path: "s"))) }
      let open = try #require(OpenConnections.count(toPort: port))
      for socket in sockets { await socket.close() }
      return (before, open)
    }

    @Test("40 connections held are 40, although the table is longer than a page of /proc")
    func pastOnePage() async throws {
      // Two lines each (the client's end and the server's): some 12 KB of table, where
      // `String(contentsOfFile:)` reads 4 KiB of a /proc file and saw about 27 lines.
      let counts = try await counted(opening: 40)
      #expect((40...40 + counts.before).contains(counts.open), "\(counts)")
    }

    @Test("a few connections held are counted (the good path beside the long table)")
    func few() async throws {
      let counts = try await counted(opening: 2)
      #expect((2...2 + counts.before).contains(counts.open), "\(counts)")
    }
  }
#endif
