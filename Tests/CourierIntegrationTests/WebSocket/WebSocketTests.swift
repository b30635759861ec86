import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A loopback server whose handler gets each upgraded connection, and a client for it.
struct WebSocketServer {
  let server: LoopbackServer
  let client: HTTPClient

  init(
    configuration: HTTPClient.Configuration = HTTPClient.Configuration(),
    subprotocol: String? = nil, transport: any HTTPTransport = WebSocketServer.transport,
    handler: @escaping @Sendable (LoopbackRequest, LoopbackWebSocket) async throws -> Void
  ) throws {
    server = try LoopbackServer { request, response in
      let socket = try await response.upgradeToWebSocket(subprotocol: subprotocol)
      try await handler(request, socket)
    }
    client = HTTPClient(
      baseURL: URL(string: "ws://127.0.0.1:\(server.port)/chat")!, configuration: configuration,
      transport: transport)
  }

  /// The transport that runs WebSockets on this platform.
  /// The client's transport: on Linux one `CurlTransport` for every WebSocket test, as clients
  /// given none share one (each test making its own, the hundred-odd WebSocket and Autobahn
  /// cases of a run held as many driver threads at once); on Apple platforms a new
  /// `URLSessionTransport`.
  static var transport: any HTTPTransport {
    #if canImport(FoundationNetworking)
      sharedCurl
    #else
      URLSessionTransport()
    #endif
  }

  #if canImport(FoundationNetworking)
    private static let sharedCurl = CurlTransport()
  #endif

  func stop() {
    server.stop()
  }
}

@Suite("WebSocket through the client", .timeLimit(.minutes(1)))
struct WebSocketTests {
  @Test("A chat round trip: text, binary and JSON out, echoed back, closed with a code")
  func chat() async throws {
    let loopback = try WebSocketServer { _, socket in try await socket.echoUntilClosed() }
    defer { loopback.stop() }
    let socket = try await loopback.client.webSocket(ChatApi.room(42))
    #expect(socket.response.status == 101)
    try await socket.send("hello")
    try await socket.send(Data([0, 1, 2, 255]))
    try await socket.send(json: ChatLine(from: "ann", text: "hi"))
    var messages = socket.messages.makeAsyncIterator()
    #expect(try await messages.next() == .text("hello"))
    #expect(try await messages.next() == .binary(Data([0, 1, 2, 255])))
    let line = try await messages.next()
    #expect(
      try JSONDecoder().decode(ChatLine.self, from: #require(line).data)
        == ChatLine(from: "ann", text: "hi"))
    await socket.close(.normalClosure, reason: "done")
    #expect(socket.closure == WebSocketClosure(code: .normalClosure))
  }

  @Test("The upgrade request carries the path, query, headers and subprotocols")
  func upgradeRequest() async throws {
    let seen = Locked<LoopbackRequest?>(nil)
    let loopback = try WebSocketServer(subprotocol: "chat.v2") { request, socket in
      seen.withLock { $0 = request }
      try await socket.send(.text("ready"))
      try await socket.echoUntilClosed()
    }
    defer { loopback.stop() }
    let endpoint = Request<Data>(
      path: "rooms/7", query: ["since": "10"], headers: ["X-Client": "tests"])
    let socket = try await loopback.client.webSocket(
      endpoint, subprotocols: ["chat.v3", "chat.v2"])
    #expect(socket.subprotocol == "chat.v2")
    var messages = socket.messages.makeAsyncIterator()
    #expect(try await messages.next() == .text("ready"))
    let request = try #require(seen.withLock { $0 })
    #expect(request.target == "/chat/rooms/7?since=10")
    #expect(request.headers["X-Client"] == "tests")
    #expect(request.headers["Sec-WebSocket-Protocol"] == "chat.v3, chat.v2")
    #expect(request.headers["Sec-WebSocket-Version"] == "13")
    await socket.close()
  }

  @Test("Decoded messages: JSON lines as a type, and one that does not decode fails")
  func decoded() async throws {
    let loopback = try WebSocketServer { _, socket in
      try await socket.send(.text(#"{"from":"bob","text":"yo"}"#))
      try await socket.send(.text("not json"))
      try await socket.echoUntilClosed()
    }
    defer { loopback.stop() }
    let socket = try await loopback.client.webSocket(ChatApi.room(1))
    var lines = socket.messages(as: ChatLine.self).makeAsyncIterator()
    #expect(try await lines.next() == ChatLine(from: "bob", text: "yo"))
    await #expect(throws: HTTPError.self) { try await lines.next() }
    await socket.close()
  }

  @Test("The server's close ends the messages, with its code and reason readable")
  func serverCloses() async throws {
    let loopback = try WebSocketServer { _, socket in
      try await socket.send(.text("last"))
      try await socket.close(code: .goingAway, reason: "maintenance")
      _ = try await socket.receiveFrame()  // the client's answering close
    }
    defer { loopback.stop() }
    let socket = try await loopback.client.webSocket(ChatApi.room(1))
    var received: [WebSocketMessage] = []
    for try await message in socket.messages { received.append(message) }
    #expect(received == [.text("last")])
    #expect(socket.closure == WebSocketClosure(code: .goingAway, reason: "maintenance"))
  }

  @Test("A ping is answered by the server's pong; the server's ping gets a pong")
  func pings() async throws {
    let pong = Locked<LoopbackWebSocket.Frame?>(nil)
    let loopback = try WebSocketServer { _, socket in
      try await socket.send(LoopbackWebSocket.Frame.ping(Data("are you there".utf8)))
      while let frame = try await socket.receiveFrame() {
        if frame.opcode == 0xA { pong.withLock { $0 = frame } }
        if frame.opcode == 0x9 {
          try await socket.send(LoopbackWebSocket.Frame.pong(frame.payload))
        }
        if frame.opcode == 0x8 {
          try await socket.close()
          return
        }
      }
    }
    defer { loopback.stop() }
    let socket = try await loopback.client.webSocket(ChatApi.room(1))
    try await socket.ping()
    await socket.close()
    #expect(pong.withLock { $0 }?.payload == Data("are you there".utf8))
  }

  @Test("A refusal is unacceptableStatus with the body; nothing else is opened")
  func refused() async throws {
    let server = try LoopbackServer { _, response in
      try await response.send(status: 403, text: "members only")
    }
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL, transport: WebSocketServer.transport)
    do {
      _ = try await client.webSocket(ChatApi.room(1))
      Issue.record("opened")
    } catch {
      guard case .unacceptableStatus(let response) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(response.status == 403)
      #expect(String(decoding: response.body, as: UTF8.self) == "members only")
    }
  }

  @Test("A 101 without a valid Sec-WebSocket-Accept is refused")
  func badAccept() async throws {
    let server = try LoopbackServer { _, response in
      try await response.sendRaw(
        Data(
          ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").utf8))
      await response.clientDisconnected()
    }
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL, transport: WebSocketServer.transport)
    let error = await #expect(throws: HTTPError.self) {
      _ = try await client.webSocket(ChatApi.room(1))
    }
    #expect(error?.urlErrorCode == .badServerResponse)
    #expect("\(error.map { "\($0)" } ?? "")".contains("Sec-WebSocket-Accept"))
  }

  @Test("A URL that is not ws, wss, http or https, and a POST, are refused before anything is sent")
  func badInput() async throws {
    let client = HTTPClient(
      baseURL: URL(string: "ftp://127.0.0.1:1/")!, transport: WebSocketServer.transport)
    await #expect(throws: HTTPError.self) { _ = try await client.webSocket(ChatApi.room(1)) }
    let post = Request<Data>(method: .post, path: "x")
    do {
      _ = try await client.webSocket(post)
    } catch {
      guard case .invalidRequest = error else {
        Issue.record("\(error)")
        return
      }
    }
  }

  @Test("Invalid UTF-8 from the server closes with 1007 and fails the reader")
  func invalidUTF8() async throws {
    let closeCode = Locked<WebSocketCloseCode?>(nil)
    let done = Signal()
    let loopback = try WebSocketServer { _, socket in
      defer { done.fire() }
      try await socket.send(
        LoopbackWebSocket.Frame(opcode: 1, payload: Data([0xCE, 0xBA, 0xED, 0xA0, 0x80])))
      while let frame = try await socket.receiveFrame(), frame.opcode != 8 {}
      closeCode.withLock { $0 = socket.closeFrame?.code }
    }
    defer { loopback.stop() }
    let socket = try await loopback.client.webSocket(ChatApi.room(1))
    await #expect(throws: HTTPError.self) {
      for try await _ in socket.messages {}
    }
    await done.wait()
    #expect(closeCode.withLock { $0 } == .invalidFramePayloadData)
  }

  @Test("A message over the limit closes with 1009 and fails with responseTooLarge")
  func tooLarge() async throws {
    let loopback = try WebSocketServer { _, socket in
      try await socket.send(.binary(Data(count: 2048)))
      while let frame = try await socket.receiveFrame(), frame.opcode != 8 {}
    }
    defer { loopback.stop() }
    let socket = try await loopback.client.webSocket(
      ChatApi.room(1), settings: WebSocket.Settings(maximumMessageSize: 1024))
    await #expect(throws: HTTPError.responseTooLarge(limit: 1024)) {
      for try await _ in socket.messages {}
    }
  }

  @Test("Without a size limit, a frame announcing 2⁶³ − 1 bytes waits for them; a drop fails it")
  func longestFrameWithoutLimit() async throws {
    let loopback = try WebSocketServer { _, socket in
      let longest: [UInt8] = [0x82, 0x7F, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
      try await socket.sendRaw(Data(longest + [1]))
      socket.closeConnection()
    }
    defer { loopback.stop() }
    let socket = try await loopback.client.webSocket(
      ChatApi.room(1), settings: WebSocket.Settings(maximumMessageSize: .max))
    let error = await #expect(throws: HTTPError.self) {
      for try await _ in socket.messages {}
    }
    #expect(error?.urlErrorCode == .networkConnectionLost, "\(String(describing: error))")
  }

  @Test("A connection that drops without a close frame fails the reader")
  func dropped() async throws {
    let loopback = try WebSocketServer { _, socket in
      try await socket.send(.text("one"))
      socket.closeConnection()
    }
    defer { loopback.stop() }
    let socket = try await loopback.client.webSocket(ChatApi.room(1))
    var messages = socket.messages.makeAsyncIterator()
    #expect(try await messages.next() == .text("one"))
    await #expect(throws: HTTPError.self) { try await messages.next() }
  }

  @Test("Cancelling the task that reads closes the connection")
  func cancelReader() async throws {
    let closed = Signal()
    let loopback = try WebSocketServer { _, socket in
      await socket.clientClosedConnection()
      closed.fire()
    }
    defer { loopback.stop() }
    let socket = try await loopback.client.webSocket(ChatApi.room(1))
    let reader = Task { () async -> HTTPError? in
      do throws(HTTPError) {
        var messages = socket.messages.makeAsyncIterator()
        while try await messages.next() != nil {}
        return nil
      } catch {
        return error
      }
    }
    reader.cancel()
    #expect(await reader.value == .cancelled)
    await closed.wait()
  }
}
