#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// What CurlTransport's WebSocket does that needs a real connection: TLS, and servers that
  /// go quiet during the handshake or the close.
  @Suite("WebSocket over CurlTransport", .timeLimit(.minutes(1)))
  struct WebSocketCurlTests {
    /// A loopback server that echoes every WebSocket message, behind a TLS relay (`wss`).
    static func echoBehindTLS() async throws -> (server: LoopbackServer, relay: TLSRelay) {
      let server = try LoopbackServer { _, response in
        try await response.upgradeToWebSocket().echoUntilClosed()
      }
      do {
        return (server, try await TLSRelay.start(upstream: server.port))
      } catch {
        server.stop()
        throw error
      }
    }

    @Test("wss: the upgrade and frames go through TLS, with the server's CA trusted")
    func secure() async throws {
      let (server, relay) = try await Self.echoBehindTLS()
      defer {
        relay.stop()
        server.stop()
      }
      let client = HTTPClient(
        baseURL: URL(string: "wss://127.0.0.1:\(relay.port)/")!,
        transport: CurlTransport(
          trust: ServerTrust(certificateAuthorities: [.file(relay.certificate)])))
      let socket = try await client.webSocket(
        Request<Data>(path: "secure"), settings: .init(pingInterval: nil))
      let big = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
      try await socket.send("over tls")
      try await socket.send(big)
      var messages = socket.messages.makeAsyncIterator()
      #expect(try await messages.next() == .text("over tls"))
      #expect(try await messages.next() == .binary(big))
      await socket.close()
      #expect(socket.closure?.code == .normalClosure)
    }

    @Test("wss to a server whose certificate is not trusted fails the handshake")
    func untrusted() async throws {
      let (server, relay) = try await Self.echoBehindTLS()
      defer {
        relay.stop()
        server.stop()
      }
      let client = HTTPClient(
        baseURL: URL(string: "wss://127.0.0.1:\(relay.port)/")!, transport: CurlTransport())
      let error = await #expect(throws: HTTPError.self) {
        _ = try await client.webSocket(Request<Data>(path: "secure"))
      }
      #expect(error?.urlErrorCode == .serverCertificateUntrusted)
      // Saying which check failed, as a request's error does.
      let text = "\(String(describing: error))"
      #expect(text.contains("certificate"), "\(text)")
    }

    @Test("A server that never answers the upgrade fails it with timedOut")
    func handshakeTimeout() async throws {
      let left = Signal()
      let server = try LoopbackServer { _, response in
        await response.clientDisconnected()
        left.fire()
      }
      defer { server.stop() }
      var configuration = HTTPClient.Configuration()
      configuration.timeout = .milliseconds(300)
      let client = HTTPClient(
        baseURL: server.baseURL, configuration: configuration, transport: CurlTransport())
      await #expect(throws: HTTPError.timedOut) {
        _ = try await client.webSocket(Request<Data>(path: "quiet"))
      }
      // The server sees the client leave, when the upgrade request reached it: under load the
      // time limit can pass before the request is even sent, and then no handler runs (the
      // test waited for it for its whole minute, once in about fifteen loaded runs).
      if server.requestCount > 0 { await watched { await left.wait() } }
    }

    @Test("Cancelling the upgrade while the server is quiet ends it at once")
    func handshakeCancelled() async throws {
      let arrived = Signal()
      let left = Signal()
      let server = try LoopbackServer { _, response in
        arrived.fire()
        await response.clientDisconnected()
        left.fire()
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      let opening = Task { () async -> HTTPError? in
        do throws(HTTPError) {
          _ = try await client.webSocket(Request<Data>(path: "quiet"))
          return nil
        } catch {
          return error
        }
      }
      await arrived.wait()
      opening.cancel()
      #expect(await opening.value == .cancelled)
      await left.wait()
    }

    @Test("A server that never answers the close is dropped after closeTimeout")
    func closeTimeout() async throws {
      let left = Signal()
      let server = try LoopbackServer { _, response in
        let socket = try await response.upgradeToWebSocket()
        while let frame = try await socket.receiveFrame(), frame.opcode != 8 {}
        await socket.clientClosedConnection()  // never answers the close frame
        left.fire()
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      let socket = try await client.webSocket(
        Request<Data>(path: "close"),
        settings: .init(pingInterval: nil, closeTimeout: .milliseconds(300)))
      await socket.close()
      await left.wait()
      #expect(socket.closure == nil)
    }

    @Test("A reader that stops reading stops the socket being read: the server's sends stall")
    func backPressure() async throws {
      let sent = Locked(0)
      let stalled = Signal()
      let server = try LoopbackServer { _, response in
        let socket = try await response.upgradeToWebSocket()
        let chunk = Data(count: 64 * 1024)
        // 32 MiB: far more than the socket buffers (a few MiB on loopback) and the client's
        // read-ahead (1 MiB) hold.
        for _ in 0..<512 {
          try await socket.send(.binary(chunk))
          sent.withLock { $0 += chunk.count }
        }
        stalled.fire()
        try await socket.echoUntilClosed()
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      let socket = try await client.webSocket(
        Request<Data>(path: "flood"), settings: .init(pingInterval: nil))
      // Reading nothing, the connection fills its read-ahead and stops reading, while the
      // server is still far from done.
      let connection = try #require(
        socket.state.withLock { $0.current.connection } as? ChannelWebSocket)
      await connection.engine.readingPaused()
      let buffered = connection.engine.state.withLock { $0.inboxBytes }
      #expect(buffered >= 1 << 20 && buffered <= (1 << 20) + 64 * 1024)
      #expect(sent.withLock { $0 } < 32 << 20)
      var messages = socket.messages.makeAsyncIterator()
      var count = 0
      // Reading everything lets the server finish.
      while count < 512, try await messages.next() != nil { count += 1 }
      await stalled.wait()
      #expect(sent.withLock { $0 } == 32 << 20)
      await socket.close()
    }

    @Test("Cancelling a sender held back by a server that does not read ends the connection")
    func cancelledSender() async throws {
      let left = Signal()
      let server = try LoopbackServer { _, response in
        let socket = try await response.upgradeToWebSocket()
        await socket.clientClosedConnection()  // reads nothing: its buffer fills at 1 MiB
        left.fire()
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      let socket = try await client.webSocket(
        Request<Data>(path: "sink"), settings: .init(pingInterval: nil))
      let sender = Task { () async -> HTTPError? in
        do throws(HTTPError) {
          for _ in 0..<256 { try await socket.send(Data(count: 1 << 20)) }
          return nil
        } catch {
          return error
        }
      }
      sender.cancel()
      #expect(await sender.value == .cancelled)
      await #expect(throws: HTTPError.cancelled) { try await socket.send("after") }
      await left.wait()
    }

    @Test(
      "A refusal whose length or chunk size is not a number fails cleanly; one without a body is read at once",
      arguments: [
        ("HTTP/1.1 403 Forbidden\r\nContent-Length: -1\r\n\r\n", 0),
        ("HTTP/1.1 403 Forbidden\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nabc\r\n", 0),
        (
          "HTTP/1.1 403 Forbidden\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "1ffffffffffffffff\r\nabc\r\n", 0
        ),
        ("HTTP/1.1 204 No Content\r\n\r\n", 204), ("HTTP/1.1 304 Not Modified\r\n\r\n", 304),
      ])
    func malformedRefusal(answer: String, status: Int) async throws {
      let server = try LoopbackServer { _, response in
        try await response.sendRaw(Data(answer.utf8))
        await response.clientDisconnected()  // keeps the connection open: no end to read to
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      let error = await #expect(throws: HTTPError.self) {
        _ = try await client.webSocket(Request<Data>(path: "x"))
      }
      if status == 0 {
        #expect(error?.urlErrorCode == .badServerResponse)
      } else {
        #expect(error?.response?.status == status)
      }
    }

    @Test(
      "A cancelled ping stops waiting; the connection goes on. An unsolicited pong answers no ping")
    func pingWaits() async throws {
      let server = try LoopbackServer { _, response in
        let socket = try await response.upgradeToWebSocket()
        while let frame = try await socket.receiveFrame() {
          switch frame.opcode {
          case 0x9:  // a ping: a stray pong first, then the message, never the real pong
            try await socket.send(LoopbackWebSocket.Frame.pong(Data("stray".utf8)))
            try await socket.send(.text("after the stray pong"))
          case 0x1: try await socket.send(.text(String(decoding: frame.payload, as: UTF8.self)))
          case 0x8:
            try await socket.close()
            return
          default: break
          }
        }
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      let socket = try await client.webSocket(
        Request<Data>(path: "ping"), settings: .init(pingInterval: nil))
      let ping = Task { () async -> HTTPError? in
        do throws(HTTPError) {
          try await socket.ping()
          return nil
        } catch {
          return error
        }
      }
      var messages = socket.messages.makeAsyncIterator()
      #expect(try await messages.next() == .text("after the stray pong"))
      // Frames are read in order: the stray pong came first, and answered nothing.
      let connection = try #require(
        socket.state.withLock { $0.current.connection } as? ChannelWebSocket)
      #expect(connection.engine.state.withLock { $0.pingers.count } == 1)
      ping.cancel()
      #expect(await ping.value == .cancelled)
      try await socket.send("still open")
      #expect(try await messages.next() == .text("still open"))
      await socket.close()
      #expect(socket.closure?.code == .normalClosure)
    }
  }
#endif
