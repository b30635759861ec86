// SocketChannelTransport's POSIX sockets: Linux (Glibc).
#if canImport(Glibc)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import Testing

  @testable import Courier

  /// WebSockets on a transport that only connects a TCP socket (``SocketChannelTransport``):
  /// the protocol runs above it, from bytes alone, as it does on CurlTransport.
  @Suite("WebSocket over a transport that only connects", .serialized, .timeLimit(.minutes(1)))
  struct WebSocketOverSocketsTests {
    static let transport = SocketChannelTransport()
    /// The test transport runs each blocking call on a thread of its own, which a loaded
    /// machine may be slow to start: the close timeout (a bound on a stuck write, not a
    /// timing the cases depend on) is longer than a client's default here, and the cases run
    /// one at a time. (Once, beside a build, two cases' answering close frames never left
    /// within the default 5 s.)
    static let closeTimeout = Duration.seconds(30)

    @Test("A chat round trip: text and binary echoed, closed with a code")
    func chat() async throws {
      let loopback = try WebSocketServer(transport: Self.transport) { _, socket in
        try await socket.echoUntilClosed()
      }
      defer { loopback.stop() }
      let socket = try await loopback.client.webSocket(
        Request<Data>(path: "room"), settings: .init(pingInterval: nil))
      #expect(socket.response.status == 101)
      try await socket.send("hello")
      try await socket.send(Data([0, 1, 2, 255]))
      try await socket.ping()
      var messages = socket.messages.makeAsyncIterator()
      #expect(try await messages.next() == .text("hello"))
      #expect(try await messages.next() == .binary(Data([0, 1, 2, 255])))
      await socket.close(.goingAway, reason: "done")
      #expect(socket.closure?.code == .goingAway)
    }

    @Test("The server's close ends the messages, and is answered with its code")
    func serverCloses() async throws {
      let answer = Locked<WebSocketCloseCode?>(nil)
      let done = Signal()
      let loopback = try WebSocketServer(transport: Self.transport) { _, socket in
        defer { done.fire() }
        try await socket.send(.text("one"))
        try await socket.close(code: .policyViolation, reason: "bye")
        while let frame = try await socket.receiveFrame(), frame.opcode != 0x8 {}
        answer.withLock { $0 = socket.closeFrame?.code }
      }
      defer { loopback.stop() }
      let socket = try await loopback.client.webSocket(
        Request<Data>(path: "room"), settings: .init(pingInterval: nil))
      var received: [WebSocketMessage] = []
      for try await message in socket.messages { received.append(message) }
      #expect(received == [.text("one")])
      #expect(socket.closure == WebSocketClosure(code: .policyViolation, reason: "bye"))
      await done.wait()
      #expect(answer.withLock { $0 } == .policyViolation)
    }

    @Test("A message over the limit: the client closes with 1009 and fails with responseTooLarge")
    func overTheLimit() async throws {
      let code = Locked<WebSocketCloseCode?>(nil)
      let done = Signal()
      let loopback = try WebSocketServer(transport: Self.transport) { _, socket in
        defer { done.fire() }
        try await socket.send(.binary(Data(count: 2048)))
        while let frame = try await socket.receiveFrame(), frame.opcode != 0x8 {}
        code.withLock { $0 = socket.closeFrame?.code }
      }
      defer { loopback.stop() }
      let socket = try await loopback.client.webSocket(
        Request<Data>(path: "big"), settings: .init(maximumMessageSize: 1024, pingInterval: nil))
      await #expect(throws: HTTPError.responseTooLarge(limit: 1024)) {
        for try await _ in socket.messages {}
      }
      await done.wait()
      #expect(code.withLock { $0 } == .messageTooBig)
    }

    @Test(
      "Written as a hurried user would: sockets opened from many tasks, one message read, none closed"
    )
    func hurriedUser() async throws {
      let count = 12
      let allEnded = Countdown(count)
      let loopback = try WebSocketServer(transport: Self.transport) { _, socket in
        try await socket.send(.text("welcome"))
        await socket.clientClosedConnection()
        allEnded.tick()
      }
      defer { loopback.stop() }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<count {
          group.addTask {
            let socket = try await loopback.client.webSocket(Request<Data>(path: "u/\(index)"))
            for try await message in socket.messages {
              #expect(message == .text("welcome"))
              break
            }
          }
        }
        try await group.waitForAll()
      }
      // Every socket let go ended its connection.
      await allEnded.wait()
    }

    @Test("Bad input is refused before anything is sent: another scheme, TLS, a plain request")
    func badInput() async throws {
      let reached = Locked(false)
      let server = try LoopbackServer { _, response in
        reached.withLock { $0 = true }
        try await response.send(status: 204)
      }
      defer { server.stop() }
      for base in ["ftp://127.0.0.1:\(server.port)/", "wss://127.0.0.1:\(server.port)/"] {
        let client = HTTPClient(baseURL: URL(string: base)!, transport: Self.transport)
        let error = await #expect(throws: HTTPError.self) {
          _ = try await client.webSocket(Request<Data>(path: "x"))
        }
        guard case .invalidRequest = error else {
          Issue.record("\(base): \(String(describing: error))")
          continue
        }
      }
      let client = HTTPClient(baseURL: server.baseURL, transport: Self.transport)
      let error = await #expect(throws: HTTPError.self) {
        _ = try await client.send(Request<Data>(path: "x"))
      }
      guard case .invalidRequest = error else {
        Issue.record("\(String(describing: error))")
        return
      }
      #expect(reached.withLock { $0 } == false)
    }

    @Test("Autobahn 5 and 7: pings and the close handshake", arguments: pingCases + closeCases)
    func autobahn(_ fuzz: AutobahnCase) async throws {
      try await Autobahn.check(fuzz, transport: Self.transport, closeTimeout: Self.closeTimeout)
    }

    @Test("Autobahn 6: UTF-8 checked as it arrives", arguments: utf8Cases)
    func autobahnUTF8(_ fuzz: AutobahnCase) async throws {
      try await Autobahn.check(fuzz, transport: Self.transport, closeTimeout: Self.closeTimeout)
    }
  }
#endif
