import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Keep-alive as an entry in a deadline timer: what it leaves behind once a connection is let
/// go, closed, ended or replaced. On the stub transport's in-memory connections and a manual
/// clock (the socket's timer is then its own, so its entries are this test's alone).
@Suite("WebSocket keep-alive leaves nothing behind", .timeLimit(.minutes(1)))
struct WebSocketKeepAliveTests {
  let clock = ManualClock()

  func client(_ stub: StubTransport) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.clock = clock
    return HTTPClient(
      baseURL: URL(string: "wss://chat.test")!, configuration: configuration, transport: stub)
  }

  /// A stub whose route at `/live` hands each connection's server side to the test, then
  /// echoes until the client closes; `ended` fires when a handler returns.
  func echoing(ended: Signal = Signal()) -> (StubTransport, AsyncStream<StubWebSocket>) {
    let (peers, arrived) = AsyncStream<StubWebSocket>.makeStream()
    let stub = StubTransport().onWebSocket("/live") { socket in
      arrived.yield(socket)
      try await socket.echoUntilClosed()
      ended.fire()
    }
    return (stub, peers)
  }

  @Test(
    "A socket let go without close() is freed and leaves the timer, its ping awaiting a pong or not",
    arguments: [true, false])
  func letGo(whilePinging: Bool) async throws {
    let ended = Signal()
    let (stub, peers) = echoing(ended: ended)
    var socket: WebSocket? = try await client(stub).webSocket(Request<Data>(path: "live"))
    var arrivals = peers.makeAsyncIterator()
    let peer = try #require(await arrivals.next())
    let timer = try #require(socket?.timer)
    #expect(timer.count == 1)
    if whilePinging {
      peer.answersPings = false
      let due = clock.now + .seconds(30)  // the default interval
      await clock.sleepers(atLeast: 1, until: due)
      clock.advance(by: .seconds(30))
      await peer.pingsReceived(atLeast: 1)
    }
    weak let letGo = socket
    socket = nil
    #expect(letGo == nil)
    #expect(timer.count == 0)
    await ended.wait()  // and its connection has ended
  }

  @Test(
    "After close() the keep-alive is gone: no entry, no ping, no timeout later",
    arguments: [true, false])
  func closeStops(whilePinging: Bool) async throws {
    let (stub, peers) = echoing()
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "live"), settings: .init(pingInterval: .seconds(30)))
    var arrivals = peers.makeAsyncIterator()
    let peer = try #require(await arrivals.next())
    if whilePinging {
      peer.answersPings = false
      await clock.sleepers(atLeast: 1, until: clock.now + .seconds(30))
      clock.advance(by: .seconds(30))
      await peer.pingsReceived(atLeast: 1)  // its pong never comes
    }
    await socket.close()
    #expect(socket.timer.count == 0)
    // Past the pong's deadline and more intervals: nothing wakes.
    clock.advance(by: .seconds(90))
    #expect(socket.timer.count == 0)
    #expect(peer.pingsReceived == (whilePinging ? 1 : 0))
    let error = await #expect(throws: HTTPError.self) { try await socket.send("after") }
    #expect(error != .timedOut)
  }

  @Test("After a reconnection the new connection is pinged, and the old one no longer")
  func reconnectionPingsTheNewConnection() async throws {
    let dropFirst = Signal()
    let (peers, arrived) = AsyncStream<StubWebSocket>.makeStream()
    let connections = Locked(0)
    let stub = StubTransport().onWebSocket("/room") { socket in
      let number = connections.withLock { count in
        count += 1
        return count
      }
      arrived.yield(socket)
      try await socket.send(.text("hello \(number)"))
      if number == 1 {
        await dropFirst.wait()
        socket.drop()
      } else {
        try await socket.echoUntilClosed()
      }
    }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "room"), settings: .init(pingInterval: .seconds(30)),
      reconnection: ReconnectionPolicy(delay: .seconds(40)))
    var arrivals = peers.makeAsyncIterator()
    let first = try #require(await arrivals.next())
    var messages = socket.messages.makeAsyncIterator()
    #expect(try await messages.next() == .text("hello 1"))
    // The first connection is pinged once, then dropped; 40 s later (after its keep-alive
    // would have looked again) the second is open.
    let start = clock.now
    await clock.sleepers(atLeast: 1, until: start + .seconds(30))
    clock.advance(by: .seconds(30))
    await first.pingsReceived(atLeast: 1)
    dropFirst.fire()
    let next = Task { try await messages.next() }
    let reconnectAt = clock.now + .seconds(40)
    await clock.sleepers(atLeast: 1, until: reconnectAt)
    clock.advance(by: .seconds(40))
    #expect(try await next.value == .text("hello 2"))
    let second = try #require(await arrivals.next())
    #expect(socket.reconnections == 1)
    #expect(socket.timer.count == 1)
    // An interval after the reconnection, the second connection is pinged; its pong (read
    // before the answer to the test's own ping) keeps it open through the next interval.
    for round in 1...2 {
      let due = reconnectAt + .seconds(30 * round)
      await clock.sleepers(atLeast: 1, until: due)
      clock.advance(by: due - clock.now)
      await second.pingsReceived(atLeast: 2 * round - 1)
      try await socket.ping()
    }
    try await socket.send("still here")
    var after = socket.messages.makeAsyncIterator()
    #expect(try await after.next() == .text("still here"))
    #expect(first.pingsReceived == 1)
    #expect(socket.timer.count == 1)
    await socket.close()
    #expect(socket.timer.count == 0)
  }

  @Test(
    "A connection that ends (dropped, or closed by the server) takes its keep-alive out at once",
    arguments: [true, false])
  func endedConnectionStops(dropped: Bool) async throws {
    let stub = StubTransport().onWebSocket("/live") { socket in
      if dropped { socket.drop() } else { socket.close(code: .normalClosure) }
    }
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "live"), settings: .init(pingInterval: .seconds(30)))
    #expect(socket.timer.count == 1)
    do {
      for try await _ in socket.messages {}
      #expect(!dropped)
    } catch {
      #expect(dropped)
    }
    #expect(socket.timer.count == 0)
  }

  @Test("With pingInterval nil nothing is scheduled and no ping goes out")
  func noPings() async throws {
    let (stub, peers) = echoing()
    let socket = try await client(stub).webSocket(
      Request<Data>(path: "live"), settings: .init(pingInterval: nil))
    var arrivals = peers.makeAsyncIterator()
    let peer = try #require(await arrivals.next())
    #expect(socket.timer.count == 0)
    clock.advance(by: .seconds(3600))
    try await socket.ping()  // the test's own, answered: the only one the server saw
    #expect(peer.pingsReceived == 1)
    await socket.close()
  }
}
