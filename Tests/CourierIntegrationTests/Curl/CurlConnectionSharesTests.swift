#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import Testing

  @testable import Courier

  /// CurlTransport spreads its byte channels over connection caches of at most 32 (libcurl
  /// walks a cache to find a channel's connection for each send, receive and close): the
  /// channels work whichever cache they share, and the caches go when their channels do.
  @Suite("CurlTransport's byte channels over shared connection caches", .timeLimit(.minutes(1)))
  struct CurlConnectionSharesTests {
    /// Opens `count` WebSockets at once through `client`.
    static func open(_ count: Int, through client: HTTPClient) async throws -> [WebSocket] {
      try await withThrowingTaskGroup(of: WebSocket.self) { group in
        for index in 0..<count {
          group.addTask {
            try await client.webSocket(
              Request<Data>(path: "s\(index)"), settings: .init(pingInterval: nil))
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
    }

    /// Each socket sends a message of its own and reads it back.
    static func echo(_ sockets: [WebSocket], round: String) async throws {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for (index, socket) in sockets.enumerated() {
          group.addTask {
            let text = "\(round) \(index)"
            try await socket.send(text)
            var messages = socket.messages.makeAsyncIterator()
            #expect(try await messages.next() == .text(text))
          }
        }
        try await group.waitForAll()
      }
    }

    @Test(
      "70 WebSockets, 32 to a cache: closing some leaves the others working; all closed, one empty cache is left"
    )
    func spread() async throws {
      let server = try LoopbackServer { _, response in
        try await response.upgradeToWebSocket().echoUntilClosed()
      }
      defer { server.stop() }
      let transport = CurlTransport()
      let driver = try transport.driver.get()
      let client = HTTPClient(baseURL: server.baseURL, transport: transport)
      let sockets = try await Self.open(70, through: client)
      #expect(driver.sharesInUse().sorted() == [6, 32, 32])
      try await Self.echo(sockets, round: "first")
      var kept: [WebSocket] = []
      for (index, socket) in sockets.enumerated() {
        if index.isMultiple(of: 2) { await socket.close() } else { kept.append(socket) }
      }
      try await Self.echo(kept, round: "after half closed")
      kept += try await Self.open(20, through: client)
      try await Self.echo(kept, round: "with new ones")
      for socket in kept { await socket.close() }
      await driver.sleepsIdle()
      #expect(driver.sharesInUse() == [0])
    }

    @Test("40 WebSockets let go without close(), as a hurried caller does: their caches go too")
    func letGo() async throws {
      let server = try LoopbackServer { _, response in
        try await response.upgradeToWebSocket().echoUntilClosed()
      }
      defer { server.stop() }
      let transport = CurlTransport()
      let driver = try transport.driver.get()
      do {
        let client = HTTPClient(baseURL: server.baseURL, transport: transport)
        let sockets = try await Self.open(40, through: client)
        try await Self.echo(sockets, round: "only")
        withExtendedLifetime(sockets) { #expect(driver.sharesInUse().sorted() == [8, 32]) }
      }
      await driver.sleepsIdle()
      #expect(driver.sharesInUse() == [0])
    }

    @Test("40 connections refused at once leave no place taken in the caches")
    func failed() async throws {
      let transport = CurlTransport()
      let driver = try transport.driver.get()
      let port = try LoopbackServer.closedPort()
      let refused = HTTPClient(
        baseURL: URL(string: "ws://127.0.0.1:\(port)/")!, transport: transport)
      await withTaskGroup(of: Void.self) { group in
        for index in 0..<40 {
          group.addTask {
            let error = await #expect(throws: HTTPError.self) {
              _ = try await refused.webSocket(Request<Data>(path: "r\(index)"))
            }
            #expect(error?.urlErrorCode == .cannotConnectToHost)
          }
        }
      }
      await driver.sleepsIdle()
      #expect(driver.sharesInUse().reduce(0, +) == 0)
    }

    @Test(
      "Over TLS (curl_easy_send and recv look in each one's own cache): 40 echo, half close, the rest echo"
    )
    func overTLS() async throws {
      let (server, relay) = try await WebSocketCurlTests.echoBehindTLS()
      defer {
        relay.stop()
        server.stop()
      }
      let transport = CurlTransport(
        trust: ServerTrust(certificateAuthorities: [.file(relay.certificate)]))
      let client = HTTPClient(
        baseURL: URL(string: "wss://127.0.0.1:\(relay.port)/")!, transport: transport)
      let sockets = try await Self.open(40, through: client)
      #expect(try transport.driver.get().sharesInUse().sorted() == [8, 32])
      try await Self.echo(sockets, round: "first")
      for socket in sockets.prefix(20) { await socket.close() }
      try await Self.echo(Array(sockets.suffix(20)), round: "after half closed")
      for socket in sockets.suffix(20) {
        await socket.close()
        #expect(socket.closure?.code == .normalClosure)
      }
    }
  }
#endif
