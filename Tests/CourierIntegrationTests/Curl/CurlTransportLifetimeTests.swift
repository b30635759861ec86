#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// A CurlTransport a user lets go gives its thread back, whatever it carried.
  @Suite("CurlTransport's lifetime", .timeLimit(.minutes(1)))
  struct CurlTransportLifetimeTests {
    /// Holds a driver without keeping it.
    final class WeakDriver: @unchecked Sendable {
      weak var driver: CurlDriver?
      init(_ transport: CurlTransport) { driver = try? transport.driver.get() }
    }

    @Test("a transport made for one request and let go ends its thread")
    func oneRequest() async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      let held: WeakDriver
      do {
        let transport = CurlTransport()
        held = WeakDriver(transport)
        let client = HTTPClient(baseURL: server.baseURL, transport: transport)
        #expect(try await client.send(Request<String>(path: "x")) == "ok")
      }
      await watched { while held.driver != nil, !Task.isCancelled { await Task.yield() } }
    }

    @Test("a transport whose WebSocket was closed, or let go, ends its thread")
    func webSockets() async throws {
      for closes in [true, false] {
        let server = try LoopbackServer { _, response in
          let socket = try await response.upgradeToWebSocket()
          try await socket.echoUntilClosed()
        }
        defer { server.stop() }
        let held: WeakDriver
        do {
          let transport = CurlTransport()
          held = WeakDriver(transport)
          let client = HTTPClient(
            baseURL: URL(string: "ws://127.0.0.1:\(server.port)")!, transport: transport)
          let socket = try await client.webSocket(Request<Data>(path: "chat"))
          try await socket.send("hi")
          var messages = socket.messages.makeAsyncIterator()
          #expect(try await messages.next() == .text("hi"))
          if closes { await socket.close() }
        }
        await watched { while held.driver != nil, !Task.isCancelled { await Task.yield() } }
      }
    }

    @Test("a transport whose stream was read halfway and let go ends its thread")
    func halfStream() async throws {
      let server = try LoopbackServer { _, response in
        try await response.writeHead()
        while true { try await response.write(Data(repeating: 1, count: 16_384)) }
      }
      defer { server.stop() }
      let held: WeakDriver
      do {
        let transport = CurlTransport()
        held = WeakDriver(transport)
        let client = HTTPClient(baseURL: server.baseURL, transport: transport)
        for try await _ in try await client.bytes(Request<Data>(path: "endless")) { break }
      }
      await watched { while held.driver != nil, !Task.isCancelled { await Task.yield() } }
    }
  }
#endif
