import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// WebSocket's protocol engine (``ChannelWebSocket``) on a byte channel the test scripts: the
/// handshake, the close handshake's rules, failures, limits, read-ahead and deadlines, with
/// no socket, and time on a manual clock.
@Suite("WebSocket's engine on a scripted byte channel", .timeLimit(.minutes(1)))
struct ChannelWebSocketTests {
  let clock = ManualClock()

  func options(
    maximumMessageSize: Int = 1 << 20, readAhead: Int = 1 << 20, deadline: Duration? = nil
  ) -> TransportWebSocketOptions {
    var options = TransportWebSocketOptions(
      maximumMessageSize: maximumMessageSize, readAhead: readAhead)
    options.timer = DeadlineTimer(clock: clock)
    options.closeTimeout = .seconds(5)
    options.transport.deadline = deadline.map { clock.now + $0 }
    return options
  }

  static let request = TransportRequest(
    head: URLRequest(url: URL(string: "ws://chat.test/room?id=1")!))

  /// An open connection on `channel`.
  func open(
    _ channel: ScriptedChannel, options: TransportWebSocketOptions? = nil
  ) async throws -> ChannelWebSocket {
    async let accepted: Void = channel.acceptUpgrade()
    let socket = try await ChannelWebSocket.open(Self.request, options: options ?? self.options()) {
      _, _ in channel
    }
    await accepted
    return try #require(socket.connection as? ChannelWebSocket)
  }

  /// Receives on `connection` in a task of its own.
  func receiving(_ connection: ChannelWebSocket) -> Receiving {
    let done = Locked(false)
    let task = Task { () async -> Result<WebSocketMessage?, HTTPError> in
      defer { done.withLock { $0 = true } }
      do throws(HTTPError) {
        return .success(try await connection.receive())
      } catch {
        return .failure(error)
      }
    }
    return Receiving(task: task, done: done)
  }

  /// A receive under way.
  struct Receiving {
    let task: Task<Result<WebSocketMessage?, HTTPError>, Never>
    let done: Locked<Bool>

    var value: Result<WebSocketMessage?, HTTPError> { get async { await task.value } }
    func cancel() { task.cancel() }
  }

  /// Returns once `receiver` waits in `connection` (true), or has had its answer (false).
  func waits(_ receiver: Receiving, in connection: ChannelWebSocket) async -> Bool {
    await eventually {
      connection.engine.state.withLock { $0.receiver != nil } || receiver.done.withLock { $0 }
    }
    return !receiver.done.withLock { $0 }
  }

  // MARK: - The handshake

  @Test("The upgrade goes out as HTTP/1.1; a 101 opens the connection, bytes after it are frames")
  func handshake() async throws {
    let channel = ScriptedChannel()
    async let accepted: Void = channel.acceptUpgrade(
      then: WebSocketFrame(
        opcode: .text, payload: Array("hi".utf8)
      ).encoded())
    let socket = try await ChannelWebSocket.open(Self.request, options: options()) { url, _ in
      #expect(url.absoluteString == "http://chat.test/room?id=1")
      return channel
    }
    await accepted
    #expect(socket.response.status == 101)
    let request = await channel.upgradeRequest()
    #expect(request.hasPrefix("GET /room?id=1 HTTP/1.1\r\nHost: chat.test\r\n"))
    #expect(request.contains("Upgrade: websocket\r\n"))
    #expect(try await socket.connection.receive() == .text("hi"))
    socket.connection.cancel()
  }

  @Test("A refusal is unacceptableStatus with its body; the channel is closed")
  func refusal() async throws {
    let channel = ScriptedChannel()
    channel.push(Data("HTTP/1.1 403 Forbidden\r\nContent-Length: 4\r\n\r\nnope".utf8))
    let error = await #expect(throws: HTTPError.self) {
      _ = try await ChannelWebSocket.open(Self.request, options: options()) { _, _ in channel }
    }
    #expect(error?.response?.status == 403)
    #expect(error?.response?.body == Data("nope".utf8))
    #expect(channel.isClosed)
  }

  @Test("An answer that fails the handshake's checks fails the opening")
  func wrongAccept() async throws {
    let channel = ScriptedChannel()
    channel.push(
      Data(
        ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          + "Sec-WebSocket-Accept: wrong\r\n\r\n").utf8))
    let error = await #expect(throws: HTTPError.self) {
      _ = try await ChannelWebSocket.open(Self.request, options: options()) { _, _ in channel }
    }
    #expect(error?.urlErrorCode == .badServerResponse)
    #expect(channel.isClosed)
  }

  @Test("A server that never answers fails the opening at its deadline, on the clock")
  func handshakeDeadline() async throws {
    let channel = ScriptedChannel()
    let opening = Task { () async -> HTTPError? in
      do throws(HTTPError) {
        _ = try await ChannelWebSocket.open(
          Self.request, options: options(deadline: .seconds(10))
        ) { _, _ in channel }
        return nil
      } catch {
        return error
      }
    }
    _ = await channel.upgradeRequest()
    await clock.sleepers(atLeast: 1)
    clock.advance(by: .seconds(10))
    #expect(await opening.value == .timedOut)
    await channel.until { $0.isClosed }
  }

  @Test("A URL that is not ws, wss, http or https, or a bad subprotocol: nothing is connected")
  func badInput() async throws {
    let connected = Locked(false)
    var options = options()
    for (url, subprotocols) in [("ftp://chat.test/", [String]()), ("ws://chat.test/", ["a b"])] {
      options.subprotocols = subprotocols
      let request = TransportRequest(head: URLRequest(url: URL(string: url)!))
      let error = await #expect(throws: HTTPError.self) {
        _ = try await ChannelWebSocket.open(request, options: options) { _, _ in
          connected.withLock { $0 = true }
          return ScriptedChannel()
        }
      }
      #expect(error?.isInvalidRequest == true, "\(url)")
    }
    #expect(connected.withLock { $0 } == false)
  }

  @Test("A transport that cannot connect declines WebSockets with invalidRequest")
  func noConnect() async throws {
    struct Bytes: HTTPTransport {
      func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
        -> TransportResponse
      {
        throw .invalidRequest(reason: "no")
      }
    }
    let error = await #expect(throws: HTTPError.self) {
      _ = try await Bytes().openWebSocket(Self.request, options: options())
    }
    #expect(error?.isInvalidRequest == true)
    #expect("\(error!)".contains("does not open connections"))
  }

  // MARK: - The close handshake

  @Test("While the answer to the peer's close is being written, a reader waits; then hears the end")
  func readerWaitsForTheAnswer() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel)
    channel.holdWrites()
    channel.push(.close(.normalClosure, reason: "bye"))
    await channel.until { $0.heldWrite != nil }
    let receiver = receiving(connection)
    #expect(await waits(receiver, in: connection))
    #expect(!channel.isClosed)
    channel.letWritesThrough()
    #expect(try await receiver.value.get() == nil)
    #expect(connection.peerClosure == WebSocketClosure(code: .normalClosure, reason: "bye"))
    #expect(try channel.framesWritten().last == .close(.normalClosure))
    #expect(channel.isClosed)
  }

  @Test("cancel() while the answer goes out lets it out; the close timeout cuts it off")
  func cancelLetsTheAnswerOut() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel)
    channel.holdWrites()
    channel.push(.close(.normalClosure))
    await channel.until { $0.heldWrite != nil }
    connection.cancel()
    #expect(!channel.isClosed)
    await clock.sleepers(atLeast: 1)
    clock.advance(by: .seconds(5))
    await channel.until { $0.isClosed }
    // Not a failure: the peer closed, and its close was answered as far as it could be.
    #expect(try await connection.receive() == nil)
  }

  @Test("A reader cancelled while the answer goes out is answered at once")
  func cancelledReaderAnsweredAtOnce() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel)
    channel.holdWrites()
    channel.push(.close(.normalClosure))
    await channel.until { $0.heldWrite != nil }
    let receiver = receiving(connection)
    #expect(await waits(receiver, in: connection))
    receiver.cancel()
    #expect(await receiver.value == .failure(.cancelled))
    #expect(!channel.isClosed)
    channel.letWritesThrough()
    await channel.until { $0.isClosed }
  }

  @Test("An open connection cancelled ends at once: the channel closes, a reader fails")
  func openConnectionCancelled() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel)
    let receiver = receiving(connection)
    #expect(await waits(receiver, in: connection))
    connection.cancel()
    #expect(channel.isClosed)
    #expect(await receiver.value == .failure(.cancelled))
    await #expect(throws: HTTPError.cancelled) { try await connection.send(.text("late")) }
  }

  @Test("close() sends a close frame and returns once the peer answers")
  func closeHandshake() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel)
    let closing = Task { await connection.close(.goingAway, reason: "done") }
    await eventually { (try? channel.framesWritten().last) == .close(.goingAway, reason: "done") }
    channel.push(.close(.goingAway))
    await closing.value
    #expect(channel.isClosed)
    #expect(connection.peerClosure?.code == .goingAway)
  }

  @Test("A stream that ends without a close frame fails the reader with networkConnectionLost")
  func endedWithoutClose() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel)
    channel.push(nil)
    let error = await #expect(throws: HTTPError.self) { try await connection.receive() }
    #expect(error?.urlErrorCode == .networkConnectionLost)
  }

  // MARK: - Failures and limits

  @Test("A protocol error's close frame is written before the reader sees the error")
  func failureAnsweredBeforeTheError() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel)
    channel.holdWrites()
    channel.push(Data([0x81, 0x02, 0xC0, 0xAF]))  // an overlong "/"
    await channel.until { $0.heldWrite != nil }
    // The close frame that says so is on its way: a reader waits for it to be out.
    let receiver = receiving(connection)
    #expect(await waits(receiver, in: connection))
    channel.letWritesThrough()
    let error = try #require(await receiver.value.failure)
    #expect(error.urlErrorCode == .badServerResponse)
    #expect(try channel.framesWritten().last?.payload.prefix(2) == [0x03, 0xEF])  // 1007
  }

  @Test("Text that is not UTF-8 fails as it arrives, before its frame is whole")
  func utf8FailsFast() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel)
    // A 100-byte text frame of which only a bad first byte has come.
    channel.push(Data([0x81, 100, 0xFF]))
    let error = await #expect(throws: HTTPError.self) { try await connection.receive() }
    #expect(error?.urlErrorCode == .badServerResponse)
    #expect(try channel.framesWritten().last?.payload.prefix(2) == [0x03, 0xEF])
  }

  @Test("A message over the limit: 1009 goes out, the reader gets responseTooLarge")
  func overTheLimit() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel, options: options(maximumMessageSize: 4))
    channel.push(WebSocketFrame(opcode: .binary, payload: [1, 2, 3, 4, 5]))
    await #expect(throws: HTTPError.responseTooLarge(limit: 4)) { try await connection.receive() }
    #expect(try channel.framesWritten().last?.payload.prefix(2) == [0x03, 0xF1])  // 1009
    #expect(channel.isClosed)
  }

  // MARK: - Messages, pings, read-ahead

  @Test("Messages go out masked and come in whole; a ping is answered with its pong")
  func messagesAndPings() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel)
    try await connection.send(.text("hello"))
    try await connection.send(.binary(Data([1, 2])))
    channel.push(WebSocketFrame(opcode: .ping, payload: [7]))
    channel.push(WebSocketFrame(fin: false, opcode: .text, payload: Array("wor".utf8)))
    channel.push(WebSocketFrame(opcode: .continuation, payload: Array("ld".utf8)))
    #expect(try await connection.receive() == .text("world"))
    let frames = try channel.framesWritten()
    #expect(
      frames.prefix(3) == [
        WebSocketFrame(opcode: .text, payload: Array("hello".utf8)),
        WebSocketFrame(opcode: .binary, payload: [1, 2]),
        WebSocketFrame(opcode: .pong, payload: [7]),
      ])
    let ping = Task { () async -> HTTPError? in
      do throws(HTTPError) {
        try await connection.ping()
        return nil
      } catch {
        return error
      }
    }
    await eventually { (try? channel.framesWritten().last?.opcode) == .ping }
    let payload = try #require(try channel.framesWritten().last?.payload)
    channel.push(WebSocketFrame(opcode: .pong, payload: Array("stray".utf8)))
    channel.push(WebSocketFrame(opcode: .pong, payload: payload))
    #expect(await ping.value == nil)
    connection.cancel()
  }

  @Test("Pings past the high-water mark of bytes to write are answered once, with the latest")
  func pingFlood() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel)
    channel.holdWrites()
    func payload(_ index: Int) -> [UInt8] {
      [UInt8(index % 256), UInt8(index / 256)] + Array(repeating: 0, count: 123)
    }
    channel.push(WebSocketFrame(opcode: .ping, payload: payload(0)))
    await eventually { channel.hasHeldWrite }  // the first pong is on its way out
    // A peer that pings and does not read: 5,000 pongs would be 655 KB.
    for index in 1...5000 { channel.push(WebSocketFrame(opcode: .ping, payload: payload(index))) }
    channel.push(WebSocketFrame(opcode: .text, payload: Array("after".utf8)))
    #expect(try await connection.receive() == .text("after"))
    let waiting = connection.engine.state.withLock { $0.queued - $0.written }
    #expect(waiting <= ChannelWebSocket.Engine.queuedBytesLimit + 131)
    channel.letWritesThrough()
    await eventually { (try? channel.framesWritten().last?.payload) == payload(5000) }
    let pongs = try channel.framesWritten()
    #expect(pongs.allSatisfy { $0.opcode == .pong })
    #expect(pongs.count < 2100)
    #expect(pongs.prefix(3).map(\.payload) == [payload(0), payload(1), payload(2)])
    connection.cancel()
  }

  @Test("The channel is read only while the messages waiting fit the read-ahead")
  func readAhead() async throws {
    let channel = ScriptedChannel()
    // Each message counts its bytes and its place in the queue.
    let cost = 6 + MemoryLayout<WebSocketMessage>.stride
    let connection = try await open(channel, options: options(readAhead: cost + 1))
    channel.push(WebSocketFrame(opcode: .binary, payload: Array(repeating: 1, count: 6)))
    channel.push(WebSocketFrame(opcode: .binary, payload: Array(repeating: 2, count: 6)))
    await connection.engine.readingPaused()
    let reads = channel.state.withLock { $0.reads }
    #expect(!channel.isReading)
    #expect(connection.engine.state.withLock { $0.inboxBytes } == 2 * cost)
    #expect(try await connection.receive() == .binary(Data(repeating: 1, count: 6)))
    await channel.until { $0.reader != nil }
    #expect(channel.state.withLock { $0.reads } == reads + 1)
    connection.cancel()
  }
}

extension Result {
  fileprivate var failure: Failure? {
    if case .failure(let failure) = self { failure } else { nil }
  }
}

extension HTTPError {
  /// The code of a transport error's `URLError`, or `nil`.
  fileprivate var urlErrorCode: URLError.Code? {
    if case .transport(let error) = self { return error.code }
    return nil
  }

  fileprivate var isInvalidRequest: Bool {
    if case .invalidRequest = self { return true }
    return false
  }
}
