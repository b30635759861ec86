import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `StubTransport`'s WebSockets run Courier's own protocol engine on an in-memory connection:
/// the upgrade request and its answer, frames both ways, the close handshake and the limits.
@Suite("StubTransport's WebSockets run the protocol", .timeLimit(.minutes(1)))
struct StubWebSocketTests {
  func client(_ stub: StubTransport) -> HTTPClient {
    HTTPClient(baseURL: URL(string: "wss://chat.test")!, transport: stub)
  }

  @Test("The upgrade request is recorded as it went out, with its handshake's fields")
  func upgradeRecorded() async throws {
    let stub = StubTransport().onWebSocket("/rooms/1", subprotocol: "chat") { _ in }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "rooms/1", query: ["a": "b c"]), subprotocols: ["chat"],
      settings: .init(pingInterval: nil))
    await socket.close()
    let request = try #require(stub.requests.first)
    #expect(request.url?.absoluteString == "wss://chat.test/rooms/1?a=b%20c")
    #expect(request.value(forHTTPHeaderField: "Upgrade") == "websocket")
    #expect(request.value(forHTTPHeaderField: "Sec-WebSocket-Version") == "13")
    #expect(request.value(forHTTPHeaderField: "Sec-WebSocket-Protocol") == "chat")
    let key = try #require(request.value(forHTTPHeaderField: "Sec-WebSocket-Key"))
    #expect(Data(base64Encoded: key)?.count == 16)
    #expect(socket.response.headers["Sec-WebSocket-Accept"] != nil)
  }

  @Test("A message over the client's limit gets its 1009 close frame, and responseTooLarge")
  func tooLargeClosesWith1009() async throws {
    let seen = Locked<WebSocketClosure?>(nil)
    let ended = Signal()
    let stub = StubTransport().onWebSocket("/big") { socket in
      try await socket.send(.binary(Data(count: 100)))
      _ = await socket.receiveMessage()
      seen.withLock { $0 = socket.closeFrame }
      ended.fire()
    }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "big"), settings: .init(maximumMessageSize: 99, pingInterval: nil))
    await #expect(throws: HTTPError.responseTooLarge(limit: 99)) {
      for try await _ in socket.messages {}
    }
    await ended.wait()
    #expect(
      seen.withLock { $0 }
        == WebSocketClosure(
          code: .messageTooBig, reason: "a frame of 100 bytes is over the limit of 99"))
  }

  @Test("The server's close is answered by the client with the same code")
  func serverCloseAnswered() async throws {
    let seen = Locked<WebSocketClosure?>(nil)
    let ended = Signal()
    let stub = StubTransport().onWebSocket("/room") { socket in
      socket.close(code: .goingAway, reason: "restarting")
      _ = await socket.receiveMessage()  // nil once the client's answer has come
      seen.withLock { $0 = socket.closeFrame }
      ended.fire()
    }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "room"), settings: .init(pingInterval: nil))
    for try await _ in socket.messages {}
    #expect(socket.closure == WebSocketClosure(code: .goingAway, reason: "restarting"))
    await ended.wait()
    #expect(seen.withLock { $0 } == WebSocketClosure(code: .goingAway))
  }

  @Test("Another route answers the upgrade it sees as HTTP: its status and body reach the caller")
  func refusals() async throws {
    let stub = StubTransport().on(.get, "/room") { request throws(HTTPError) in
      StubResponse(
        status: 403, text: "no \(request.value(forHTTPHeaderField: "Upgrade") ?? "upgrade")")
    }
    let refused = await #expect(throws: HTTPError.self) {
      _ = try await client(stub).webSocket(Request<Data>(path: "room"))
    }
    #expect(refused?.response?.status == 403)
    #expect(refused?.response?.body == Data("no websocket".utf8))
    let missing = await #expect(throws: HTTPError.self) {
      _ = try await client(stub).webSocket(Request<Data>(path: "nowhere"))
    }
    #expect(missing?.response?.status == 404)
    #expect(missing?.response?.body == Data("StubTransport has no route for GET /nowhere".utf8))
    let failing = StubTransport().on(.get, "/room", failing: .timedOut)
    await #expect(throws: HTTPError.timedOut) {
      _ = try await client(failing).webSocket(Request<Data>(path: "room"))
    }
  }

  @Test("Sockets let go without close() end their servers' handlers")
  func letGo() async throws {
    let count = 50
    let allEnded = Countdown(count)
    let stub = StubTransport().onWebSocket("/room") { socket in
      defer { allEnded.tick() }
      try await socket.send(.text("hello"))
      try await socket.echoUntilClosed()
    }
    await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<count {
        group.addTask {
          let socket = try await client(stub).webSocket(
            Request<Data>(path: "room"), settings: .init(pingInterval: nil))
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
}
