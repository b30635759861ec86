#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// CurlTransport carries its WebSocket connections on its one thread: a connection costs
  /// its socket, no thread and no other descriptor. Threads and descriptors are the process's,
  /// so they are counted in a child process (this test binary, running only
  /// ``WebSocketManyConnectionsChild``) where no other test runs; the echo server (a thread and
  /// a socket per connection of its own) stays in this one.
  @Suite("WebSocket: many connections on one thread", .timeLimit(.minutes(2)))
  struct WebSocketManyConnectionsTests {
    static let connections = 200

    @Test("200 connections through one client: no thread and one descriptor each, given back")
    func manyConnections() async throws {
      let binary = ProcessInfo.processInfo.arguments[0]
      try #require(FileManager.default.isExecutableFile(atPath: binary))
      let server = try LoopbackServer { _, response in
        try await response.upgradeToWebSocket().echoUntilClosed()
      }
      defer { server.stop() }
      let command =
        "COURIER_WS_MANY_CHILD=\(server.port) '\(binary)' --testing-library swift-testing"
        + " --filter WebSocketManyConnectionsChild 2>&1"
      let output = try await ProxyTests.run(command)
      #expect(output.contains("Test run with 1 test"), "the child ran no test:\n\(output)")
      #expect(!output.contains("✘"), "the child failed:\n\(output)")
    }
  }

  /// The child's side of ``WebSocketManyConnectionsTests``: runs only in the child process.
  @Suite(
    "WebSocket: many connections on one thread (child process)",
    .enabled(if: ProcessInfo.processInfo.environment["COURIER_WS_MANY_CHILD"] != nil))
  struct WebSocketManyConnectionsChild {
    @Test("threads stay put, descriptors grow by one per connection, and both come back")
    func counted() async throws {
      let port = try #require(ProcessInfo.processInfo.environment["COURIER_WS_MANY_CHILD"])
      let client = HTTPClient(
        baseURL: URL(string: "ws://127.0.0.1:\(port)/")!, transport: CurlTransport())
      func open() async throws -> WebSocket {
        try await client.webSocket(Request<Data>(path: "many"), settings: .init(pingInterval: nil))
      }
      // One connection first, so that what is made once (libcurl, the task pool's threads,
      // Dispatch's timer thread and its descriptors) is there before the counts start; a
      // few may still come late, hence the slack of a few, against one per connection.
      let first = try await open()
      try await first.send("warm")
      await first.close()
      let (threads, descriptors) = (Self.threads(), Self.descriptors())
      let count = WebSocketManyConnectionsTests.connections
      var sockets: [WebSocket] = []
      for _ in 0..<count { sockets.append(try await open()) }
      #expect(Self.threads() - threads <= 2)
      #expect((count...count + 4).contains(Self.descriptors() - descriptors))
      // A round of echoes across all of them, on the same thread.
      for (index, socket) in sockets.enumerated() { try await socket.send("echo \(index)") }
      for (index, socket) in sockets.enumerated() {
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("echo \(index)"))
      }
      #expect(Self.threads() - threads <= 2)
      for socket in sockets { await socket.close() }
      #expect(sockets.allSatisfy { $0.closure?.code == .normalClosure })
      #expect(Self.descriptors() - descriptors <= 4)
      #expect(Self.threads() - threads <= 2)
    }

    /// The process's threads.
    static func threads() -> Int {
      (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    /// The process's open descriptors (less the one that lists them).
    static func descriptors() -> Int {
      ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 1) - 1
    }
  }
#endif
