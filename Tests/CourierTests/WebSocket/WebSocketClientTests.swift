import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `WebSocket`'s own rules — keep-alive, the close timeout, reconnection, decoding — on the
/// stub transport's in-memory connections and a manual clock.
@Suite("WebSocket on the stub transport", .timeLimit(.minutes(1)))
struct WebSocketClientTests {
  struct Line: Codable, Sendable, Equatable {
    var text: String
  }

  let clock = ManualClock()

  func client(_ stub: StubTransport, middleware: [any Middleware] = []) -> HTTPClient {
    var configuration = HTTPClient.Configuration(middleware: middleware)
    configuration.clock = clock
    return HTTPClient(
      baseURL: URL(string: "wss://chat.test")!, configuration: configuration, transport: stub)
  }

  @Test("An in-memory server: messages both ways, a chosen subprotocol, the server's close")
  func roundTrip() async throws {
    let stub = StubTransport().onWebSocket("/rooms/1", subprotocol: "chat") { socket in
      try await socket.send(.text("welcome"))
      while let message = await socket.receiveMessage() {
        if message == .text("bye") { break }
        try await socket.send(message)
      }
      socket.close(code: .goingAway, reason: "see you")
    }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "rooms/1"), subprotocols: ["other", "chat"],
      settings: .init(pingInterval: nil))
    #expect(socket.subprotocol == "chat")
    try await socket.send("one")
    try await socket.send("bye")
    var received: [WebSocketMessage] = []
    for try await message in socket.messages { received.append(message) }
    #expect(received == [.text("welcome"), .text("one")])
    #expect(socket.closure == WebSocketClosure(code: .goingAway, reason: "see you"))
    #expect(stub.requests.first?.url?.absoluteString == "wss://chat.test/rooms/1")
  }

  @Test("A path with no WebSocket route is refused as the route answers (404)")
  func noRoute() async throws {
    let stub = StubTransport()
    let error = await #expect(throws: HTTPError.self) {
      _ = try await client(stub).webSocket(Request<Data>(path: "nowhere"))
    }
    #expect(error?.response?.status == 404)
  }

  @Test("Messages decode as a type, and one that does not decode names its bytes")
  func decoding() async throws {
    let stub = StubTransport().onWebSocket("/feed") { socket in
      try await socket.send(.text(#"{"text":"a"}"#))
      try await socket.send(.binary(Data(#"{"text":"b"}"#.utf8)))
      try await socket.send(.text("{oops"))
      _ = await socket.receiveMessage()
    }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "feed"), settings: .init(pingInterval: nil))
    var lines = socket.messages(as: Line.self).makeAsyncIterator()
    #expect(try await lines.next() == Line(text: "a"))
    #expect(try await lines.next() == Line(text: "b"))
    let error = await #expect(throws: HTTPError.self) { try await lines.next() }
    #expect(error?.response?.body == Data("{oops".utf8))
    await socket.close()
  }

  @Test("A value that cannot be encoded is refused and nothing is sent")
  func unencodable() async throws {
    let received = Locked<[WebSocketMessage]>([])
    let stub = StubTransport().onWebSocket("/feed") { socket in
      while let message = await socket.receiveMessage() { received.withLock { $0.append(message) } }
    }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "feed"), settings: .init(pingInterval: nil))
    let error = await #expect(throws: HTTPError.self) { try await socket.send(json: Double.nan) }
    guard case .invalidRequest = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    try await socket.send(json: Line(text: "ok"))
    await socket.close()
    #expect(received.withLock { $0 } == [.text(#"{"text":"ok"}"#)])
  }

  @Test("Keep-alive: pings every interval; no pong within the next one ends it with timedOut")
  func keepAlive() async throws {
    let server = Locked<StubWebSocket?>(nil)
    let serving = Signal()
    let stub = StubTransport().onWebSocket("/live") { socket in
      server.withLock { $0 = socket }
      serving.fire()
      try await socket.echoUntilClosed()
    }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "live"), settings: .init(pingInterval: .seconds(30)))
    await serving.wait()
    let peer = try #require(server.withLock { $0 })
    let finished = Locked(false)
    let reader = Task { () async -> HTTPError? in
      defer { finished.withLock { $0 = true } }
      do throws(HTTPError) {
        for try await _ in socket.messages {}
        return nil
      } catch {
        return error
      }
    }
    // Answered pings keep it open, however many intervals pass. Each round waits for the
    // keep-alive to wait for the next interval, moves the clock there, holds the ping at the
    // server, moves the clock on a second and lets the pong go; a ping of the test's own,
    // answered after it on the same connection, shows the pong was read.
    peer.answersPings = false
    let start = clock.now
    for round in 1...4 {
      let due = start + .seconds(30 * round)
      await clock.sleepers(atLeast: 1, until: due)
      clock.advance(by: due - clock.now)
      await peer.pingsReceived(atLeast: 2 * round - 1)  // the keep-alive's, after ours
      clock.advance(by: .seconds(1))
      peer.answersPings = true
      try await socket.ping()
      peer.answersPings = false
    }
    try await socket.send("still here")
    // From now on a ping goes unanswered: an interval after it goes out, the connection is
    // dropped and the reader hears why.
    await clock.sleepers(atLeast: 1, until: start + .seconds(150))
    clock.advance(by: start + .seconds(150) - clock.now)
    await peer.pingsReceived(atLeast: 9)
    await clock.sleepers(atLeast: 1, until: start + .seconds(180))
    #expect(!finished.withLock { $0 })
    clock.advance(by: .seconds(30))
    #expect(await reader.value == .timedOut)
    await #expect(throws: HTTPError.timedOut) { try await socket.send("after") }
  }

  @Test("Closing waits for the server's close at most closeTimeout, then drops the connection")
  func closeTimeout() async throws {
    let stub = StubTransport().onWebSocket("/slow") { socket in
      _ = await socket.receiveMessage()  // the client's close: never answered
      await Gate().wait()
    }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "slow"), settings: .init(pingInterval: nil, closeTimeout: .seconds(5)))
    let closing = Task { await socket.close(.goingAway) }
    await clock.sleepers(atLeast: 1)
    clock.advance(by: .seconds(5))
    await closing.value
    await #expect(throws: HTTPError.self) { try await socket.send("after") }
  }

  @Test("Reconnection: a dropped connection is opened again after the delay; messages go on")
  func reconnects() async throws {
    let connections = Locked(0)
    let stub = StubTransport().onWebSocket("/room") { socket in
      let number = connections.withLock { count in
        count += 1
        return count
      }
      try await socket.send(.text("hello \(number)"))
      if number == 1 {
        socket.drop()
      } else {
        try await socket.echoUntilClosed()
      }
    }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "room"), settings: .init(pingInterval: nil),
      reconnection: ReconnectionPolicy(delay: .seconds(2), maximumConsecutiveFailures: 3))
    var messages = socket.messages.makeAsyncIterator()
    #expect(try await messages.next() == .text("hello 1"))
    let next = Task { try await messages.next() }
    await clock.sleepers(atLeast: 1)
    clock.advance(by: .seconds(2))
    #expect(try await next.value == .text("hello 2"))
    #expect(socket.reconnections == 1)
    await socket.close()
  }

  @Test("Without a reconnection policy a dropped connection fails the reader")
  func noReconnection() async throws {
    let stub = StubTransport().onWebSocket("/room") { socket in socket.drop() }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "room"), settings: .init(pingInterval: nil))
    let error = await #expect(throws: HTTPError.self) {
      for try await _ in socket.messages {}
    }
    guard case .transport(let failure) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(failure.code == .networkConnectionLost)
  }

  @Test("A message over the limit fails the reader with responseTooLarge")
  func tooLarge() async throws {
    let stub = StubTransport().onWebSocket("/big") { socket in
      try await socket.send(.binary(Data(count: 100)))
    }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "big"), settings: .init(maximumMessageSize: 99, pingInterval: nil))
    await #expect(throws: HTTPError.responseTooLarge(limit: 99)) {
      for try await _ in socket.messages {}
    }
  }

  @Test("A server sending faster than the client reads is held back once the read-ahead is full")
  func serverHeldBack() async throws {
    let sent = Locked(0)
    let stub = StubTransport().onWebSocket("/feed") { socket in
      for _ in 0..<40 {
        try await socket.send(.binary(Data(count: 64 * 1024)))
        sent.withLock { $0 += 1 }
      }
      _ = await socket.receiveMessage()
    }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "feed"), settings: .init(pingInterval: nil))
    let connection = try #require(
      socket.state.withLock { $0.current.connection } as? ChannelWebSocket)
    await connection.engine.readingPaused()
    // 1 MiB waits for the reader, and the in-memory connection holds little more: the server
    // cannot have sent all 2.5 MiB.
    #expect(sent.withLock { $0 } < 40)
    var received = 0
    for try await _ in socket.messages {
      received += 1
      if received == 40 { break }
    }
    await socket.close()  // answered once the handler has returned
    #expect(sent.withLock { $0 } == 40)
  }

  @Test("Middleware shapes the upgrade request, and credentials stay out of error text")
  func middleware() async throws {
    let stub = StubTransport().onWebSocket("/private") { socket in
      try await socket.echoUntilClosed()
    }
    let auth = BearerAuthentication(provider: FixedToken())
    let socket = try await client(stub, middleware: [auth]).webSocket(
      Request<Data>(path: "private"), settings: .init(pingInterval: nil))
    #expect(
      stub.requests.first?.value(forHTTPHeaderField: "Authorization") == "Bearer s3cret-token")
    await socket.close()
    let refused = StubTransport().on(.get, "/private") { request throws(HTTPError) in
      let sent = request.value(forHTTPHeaderField: "Authorization") ?? ""
      return StubResponse(status: 401, text: "refused: \(sent)")
    }
    let error = await #expect(throws: HTTPError.self) {
      _ = try await client(refused, middleware: [auth]).webSocket(Request<Data>(path: "private"))
    }
    #expect(error?.response?.status == 401)
    #expect(!"\(error.map { "\($0)" } ?? "")".contains("s3cret-token"))
  }

  struct FixedToken: CredentialProvider {
    func token() async throws(HTTPError) -> String { "s3cret-token" }
    func refresh() async throws(HTTPError) -> String { "s3cret-token" }
  }

  @Test("A middleware that throws after the upgrade leaves no connection open")
  func middlewareThrowsAfterUpgrade() async throws {
    struct Refuses: Middleware {
      func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
        -> HTTPResponse
      {
        _ = try await next(request)
        throw .invalidRequest(reason: "refused after the fact")
      }
    }
    let serverSawEnd = Signal()
    let stub = StubTransport().onWebSocket("/room") { socket in
      _ = await socket.receiveMessage()  // nil once the client's side is gone
      serverSawEnd.fire()
    }
    await #expect(throws: HTTPError.self) {
      _ = try await client(stub, middleware: [Refuses()]).webSocket(Request<Data>(path: "room"))
    }
    await serverSawEnd.wait()
  }

  @Test("A second reader is refused, and a refusal does not count as a drop to reconnect after")
  func secondReader() async throws {
    let stub = StubTransport().onWebSocket("/room") { socket in
      _ = await socket.receiveMessage()
    }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "room"), settings: .init(pingInterval: nil),
      reconnection: ReconnectionPolicy(delay: .seconds(1)))
    @Sendable func read() async -> HTTPError? {
      do throws(HTTPError) {
        var messages = socket.messages.makeAsyncIterator()
        _ = try await messages.next()
        return nil
      } catch {
        return error
      }
    }
    let first = Task { await read() }
    let second = Task { await read() }
    // Whichever came second is refused at once; the other waits until the close.
    let refused = await withTaskGroup(of: HTTPError?.self) { group in
      group.addTask { await first.value }
      group.addTask { await second.value }
      let outcome = await group.next() ?? nil
      await socket.close()
      return outcome
    }
    guard case .invalidRequest = refused else {
      Issue.record("\(String(describing: refused))")
      return
    }
    #expect(socket.reconnections == 0)
  }

  @Test(
    "Settings and subprotocols no connection can keep are refused before anything is sent",
    arguments: [
      (WebSocket.Settings(maximumMessageSize: 0), ["chat"]),
      (WebSocket.Settings(pingInterval: .zero), ["chat"]),
      (WebSocket.Settings(closeTimeout: .seconds(-1)), ["chat"]),
      (WebSocket.Settings(), ["chat\r\nX-Injected: 1"]), (WebSocket.Settings(), ["a b"]),
      (WebSocket.Settings(), [""]), (WebSocket.Settings(), ["chat", "chat"]),
    ] as [(WebSocket.Settings, [String])])
  func refusedSettings(settings: WebSocket.Settings, subprotocols: [String]) async throws {
    let stub = StubTransport().onWebSocket("/room") { _ in }
    let error = await #expect(throws: HTTPError.self) {
      _ = try await client(stub).webSocket(
        Request<Data>(path: "room"), subprotocols: subprotocols, settings: settings)
    }
    guard case .invalidRequest = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(stub.requests.isEmpty)
  }

  @Test("A marked credential goes with an upgrade at home, never to another origin's URL")
  func markedCredentialStaysHome() async throws {
    let stub = StubTransport().onWebSocket("/room") { _ in }
    let client = client(stub, middleware: [ClientIDMiddleware()])
    for path in ["room", "https://other.test/room"] {
      let socket = try await client.webSocket(
        Request<Data>(path: path), settings: .init(pingInterval: nil))
      await socket.close()
    }
    let sent = stub.requests.map { $0.value(forHTTPHeaderField: "X-Client") }
    #expect(sent == [ClientIDMiddleware.value, nil])
  }

  @Test("A Secure cookie goes with a wss upgrade, as with https")
  func secureCookie() async throws {
    let jar = CookieJar()
    jar.store(["session=s1; Secure; Path=/"], from: URL(string: "https://chat.test/login")!)
    let stub = StubTransport().onWebSocket("/room") { _ in }
    var configuration = HTTPClient.Configuration()
    configuration.cookies = jar
    let client = HTTPClient(
      baseURL: URL(string: "wss://chat.test")!, configuration: configuration, transport: stub)
    let socket = try await client.webSocket(
      Request<Data>(path: "room"), settings: .init(pingInterval: nil))
    #expect(stub.requests.first?.value(forHTTPHeaderField: "Cookie") == "session=s1")
    await socket.close()
  }

  #if canImport(FoundationNetworking)
    @Test("URLSessionTransport on Linux declines, naming CurlTransport")
    func urlSessionDeclines() async throws {
      let client = HTTPClient(
        baseURL: URL(string: "ws://127.0.0.1:9")!, transport: URLSessionTransport())
      let error = await #expect(throws: HTTPError.self) {
        _ = try await client.webSocket(Request<Data>(path: "x"))
      }
      guard case .invalidRequest(let reason) = error else {
        Issue.record("\(String(describing: error))")
        return
      }
      #expect(reason.contains("CurlTransport"))
    }
  #endif

  /// A transport of one's own that wraps another and forwards everything it can.
  struct Forwarding: HTTPTransport {
    let base: any HTTPTransport

    func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
      -> TransportResponse
    {
      try await base.send(request, options: options)
    }

    func connect(to url: URL, options: TransportOptions) async throws(HTTPError)
      -> any TransportByteChannel
    {
      try await base.connect(to: url, options: options)
    }
  }

  @Test(
    "URLSessionTransport wrapped in a transport of one's own: declined, saying why, nothing sent")
  func wrappedURLSessionDeclines() async throws {
    let client = HTTPClient(
      baseURL: URL(string: "ws://127.0.0.1:9")!,
      transport: Forwarding(base: URLSessionTransport()))
    let error = await #expect(throws: HTTPError.self) {
      _ = try await client.webSocket(Request<Data>(path: "x"))
    }
    guard case .invalidRequest(let reason) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(reason.contains("not wrapped in another"))
  }
}
