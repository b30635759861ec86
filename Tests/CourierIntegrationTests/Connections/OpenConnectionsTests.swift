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
    /// Opens `count` WebSockets to a fresh echo server, returns the connections counted while
    /// they are open, then closes them and returns the count once they are closed.
    private func counted(opening count: Int) async throws -> (open: Int?, closed: Int?) {
      let server = try LoopbackServer { _, response in
        let socket = try await response.upgradeToWebSocket()
        try await socket.echoUntilClosed()
      }
      defer { server.stop() }
      let client = HTTPClient(
        baseURL: URL(string: "ws://127.0.0.1:\(server.port)")!, transport: CurlTransport())
      var sockets: [WebSocket] = []
      for _ in 0..<count { sockets.append(try await client.webSocket(Request<Data>(path: "s"))) }
      let port = UInt16(server.port)
      let open = OpenConnections.count(toPort: port)
      for socket in sockets { await socket.close() }  // returns once the connection has ended
      return (open, OpenConnections.count(toPort: port))
    }

    @Test("40 connections held are 40, although the table is longer than a page of /proc")
    func pastOnePage() async throws {
      // Two lines each (the client's end and the server's): some 12 KB of table, where
      // `String(contentsOfFile:)` reads 4 KiB of a /proc file and saw about 27 lines.
      let counts = try await counted(opening: 40)
      #expect(counts.open == 40)
      #expect(counts.closed == 0)
    }

    @Test("a few connections held are counted, and none once they are closed")
    func few() async throws {
      let counts = try await counted(opening: 2)
      #expect(counts.open == 2)
      #expect(counts.closed == 0)
    }
  }
#endif
