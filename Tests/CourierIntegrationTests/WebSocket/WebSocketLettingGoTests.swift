// CurlTransport's WebSocket (the Linux default) is the client under test.
#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// Code written the usual way: a loop over the messages, then the socket let go (no
  /// `close()`). The server's close must still be answered with a close frame before the
  /// connection ends (RFC 6455 §5.5.1), whatever the app does once its loop is over.
  @Suite("WebSocket: a client that lets its socket go", .timeLimit(.minutes(1)))
  struct WebSocketLettingGoTests {
    /// Reads every message and lets go of `socket` when the loop ends, as most code does.
    private static func readAll(_ socket: consuming WebSocket) async -> HTTPError? {
      do throws(HTTPError) {
        for try await _ in socket.messages {}
        return nil
      } catch {
        return error
      }
    }

    @Test("The server's close is answered before the connection ends, behind a send backlog")
    func answeredBehindABacklog() async throws {
      let backlogged = Signal()
      let sawClose = Locked<Bool?>(nil)
      let done = Signal()
      let server = try LoopbackServer { _, response in
        defer { done.fire() }
        let socket = try await response.upgradeToWebSocket()
        await backlogged.wait()  // reads nothing until the client's sends are stuck
        // Written raw: `close(code:)` would stop holding the client back, and the server
        // would drain the client's backlog before the close frame even left.
        try await socket.sendRaw(Data(LoopbackWebSocket.Frame.close(code: .normalClosure).wire))
        var closed = false
        while let frame = try await socket.receiveFrame() {
          if frame.opcode == 0x8 {
            closed = true
            break
          }
        }
        sawClose.withLock { $0 = closed }
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      let socket = try await client.webSocket(
        Request<Data>(path: "backlog"), settings: .init(pingInterval: nil))
      let connection = try #require(
        socket.state.withLock { $0.current.connection } as? ChannelWebSocket)
      let channel = try #require(connection.engine.channel as? CurlByteChannel)
      // Sends until the socket's buffers are full and bytes wait in the connection itself
      // (the driver went to sleep with bytes it could not write), so that the answer to the
      // server's close queues behind them and needs the server to read megabytes first.
      while true {
        try await socket.send(Data(count: 64 * 1024))
        var (stuck, idle) = (false, false)
        while !stuck && !idle {
          await Task.yield()
          stuck = channel.state.withLock { $0.isPolling && $0.writer != nil }
          idle = connection.engine.state.withLock { $0.queued == $0.written && !$0.isWriting }
        }
        if stuck { break }
      }
      backlogged.fire()
      let error = await Self.readAll(consume socket)
      #expect(error == nil)
      await done.wait()
      #expect(sawClose.withLock { $0 } == true)
    }

    @Test("Sockets let go while open, mid-conversation, end their connections")
    func openSocketsLetGo() async throws {
      let count = 20
      let allEnded = Countdown(count)
      let server = try LoopbackServer { _, response in
        let socket = try await response.upgradeToWebSocket()
        try await socket.send(.text("hello"))
        await socket.clientClosedConnection()
        allEnded.tick()
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      // Each task opens a socket, reads one message of several, sends one, and returns
      // without `close()`: the socket goes with it.
      await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<count {
          group.addTask {
            let socket = try await client.webSocket(
              Request<Data>(path: "chat/\(index)"), settings: .init(pingInterval: nil))
            var messages = socket.messages.makeAsyncIterator()
            _ = try await messages.next()
            try await socket.send("bye from \(index)")
          }
        }
        while let result = await group.nextResult() {
          if case .failure(let error) = result { Issue.record(error) }
        }
      }
      await allEnded.wait()
    }

    @Test("A protocol error's close frame goes out before the reader sees the error")
    func failureAnsweredBeforeTheError() async throws {
      let code = Locked<WebSocketCloseCode?>(nil)
      let done = Signal()
      let server = try LoopbackServer { _, response in
        defer { done.fire() }
        let socket = try await response.upgradeToWebSocket()
        try await socket.sendRaw(Data([0x81, 0x02, 0xC0, 0xAF]))  // an overlong "/"
        while let frame = try await socket.receiveFrame(), frame.opcode != 0x8 {}
        code.withLock { $0 = socket.closeFrame?.code }
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      let socket = try await client.webSocket(
        Request<Data>(path: "bad"), settings: .init(pingInterval: nil))
      let error = await Self.readAll(consume socket)
      #expect(error?.urlErrorCode == .badServerResponse)
      await done.wait()
      #expect(code.withLock { $0 } == .invalidFramePayloadData)
    }

    @Test("A closed connection is let go at once, not held until its close timeout")
    func closedConnectionFreed() async throws {
      let server = try LoopbackServer { _, response in
        try await response.upgradeToWebSocket().echoUntilClosed()
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      weak var engine: ChannelWebSocket.Engine?
      do {
        let socket = try await client.webSocket(
          Request<Data>(path: "freed"),
          settings: .init(pingInterval: nil, closeTimeout: .seconds(60)))
        engine = (socket.state.withLock { $0.current.connection } as? ChannelWebSocket)?.engine
        #expect(engine != nil)
        await socket.close()
        #expect(socket.closure?.code == .normalClosure)
      }
      // Its reading and writing tasks return once it has ended; the close timeout's timer
      // (60 seconds) must not hold it.
      while engine != nil { await Task.yield() }
    }
  }
#endif
