import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite(.timeLimit(.minutes(1)))
struct LoopbackWebSocketTests {
  /// RFC 6455 §1.3's example key, and the answer it calls for (as the RFC gives it, and
  /// as `openssl sha1 -binary | base64` computes it).
  static let key = "dGhlIHNhbXBsZSBub25jZQ=="
  static let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

  static func upgradeRequest(key: String = key, extra: String = "") -> String {
    "GET /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\(extra)\r\n"
  }

  @Test("answers the upgrade with 101 and the Accept that RFC 6455's example key calls for")
  func handshake() async throws {
    let server = try LoopbackServer { _, response in
      _ = try await response.upgradeToWebSocket(subprotocol: "chat", headers: ["X-Extra": "1"])
    }
    defer { server.stop() }

    let head = try await onOwnThread {
      var client = try RawWebSocketClient(port: server.port)
      defer { client.disconnect() }
      return try client.handshake(Self.upgradeRequest(extra: "Sec-WebSocket-Protocol: chat\r\n"))
    }

    let lines = head.components(separatedBy: "\r\n")
    #expect(lines.first == "HTTP/1.1 101 Switching Protocols")
    #expect(lines.contains("Upgrade: websocket"))
    #expect(lines.contains("Connection: Upgrade"))
    #expect(lines.contains("Sec-WebSocket-Accept: \(Self.accept)"))
    #expect(lines.contains("Sec-WebSocket-Protocol: chat"))
    #expect(lines.contains("X-Extra: 1"))
    #expect(!lines.contains { $0.lowercased().hasPrefix("content-length") })
  }

  @Test("receives a client's masked frame unmasked, and sends its answer unmasked")
  func maskedInUnmaskedOut() async throws {
    let (frames, received) = AsyncStream.makeStream(of: LoopbackWebSocket.Frame?.self)
    let server = try LoopbackServer { _, response in
      let socket = try await response.upgradeToWebSocket()
      received.yield(try await socket.receiveFrame())
      try await socket.echoUntilClosed()
    }
    defer { server.stop() }

    let answers = try await onOwnThread {
      var client = try RawWebSocketClient(port: server.port)
      defer { client.disconnect() }
      // The frames come right behind the request head, before the 101.
      let first = WebSocketFrame(opcode: .text, payload: Array("first".utf8))
      let hello = WebSocketFrame(opcode: .text, payload: Array("hello".utf8))
      _ = try client.handshake(
        Self.upgradeRequest(), then: client.masked(first) + client.masked(hello))
      let echo = try client.readFrame()  // the reader refuses a masked one
      try client.sendFrame(.close(.normalClosure, reason: "done"))
      let close = try client.readFrame()
      return (echo, close, try client.readFrame())
    }

    var iterator = frames.makeAsyncIterator()
    let next = try #require(await iterator.next())
    let frame = try #require(next)
    #expect(
      frame == LoopbackWebSocket.Frame(opcode: 1, payload: Data("first".utf8), isMasked: true))
    #expect(answers.0 == WebSocketFrame(opcode: .text, payload: Array("hello".utf8)))
    #expect(answers.1 == WebSocketFrame.close(.normalClosure))
    #expect(answers.2 == nil)  // then the server closed the connection
  }

  @Test("joins fragments in receiveMessage, answering a ping between them")
  func fragments() async throws {
    let (messages, received) = AsyncStream.makeStream(of: WebSocketMessage?.self)
    let (closes, closed) = AsyncStream.makeStream(of: LoopbackWebSocket.CloseFrame?.self)
    let server = try LoopbackServer { _, response in
      let socket = try await response.upgradeToWebSocket()
      received.yield(try await socket.receiveMessage())
      received.yield(try await socket.receiveMessage())
      received.yield(try await socket.receiveMessage())
      closed.yield(socket.closeFrame)
    }
    defer { server.stop() }

    let pong = try await onOwnThread {
      var client = try RawWebSocketClient(port: server.port)
      defer { client.disconnect() }
      _ = try client.handshake(Self.upgradeRequest())
      try client.sendFrame(WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)))
      try client.sendFrame(WebSocketFrame(opcode: .ping, payload: [7]))
      try client.sendFrame(
        WebSocketFrame(fin: false, opcode: .continuation, payload: Array("lo, ".utf8)))
      try client.sendFrame(WebSocketFrame(opcode: .continuation, payload: Array("wörld".utf8)))
      try client.sendFrame(WebSocketFrame(opcode: .pong, payload: [1]))
      try client.sendFrame(WebSocketFrame(opcode: .binary, payload: [1, 2, 3]))
      try client.sendFrame(.close(.goingAway, reason: "bye"))
      return try client.readFrame()
    }

    #expect(pong == WebSocketFrame(opcode: .pong, payload: [7]))
    var iterator = messages.makeAsyncIterator()
    #expect(await iterator.next() == .text("Hello, wörld"))
    #expect(await iterator.next() == .binary(Data([1, 2, 3])))
    #expect(await iterator.next() == .some(nil))
    var closeIterator = closes.makeAsyncIterator()
    let close = await closeIterator.next()
    #expect(close == LoopbackWebSocket.CloseFrame(code: .goingAway, reason: "bye"))
  }

  /// A request that is not a WebSocket upgrade, named for the test's report.
  struct NotAnUpgrade: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let request: String

    static let all = [
      NotAnUpgrade(
        testDescription: "a plain GET",
        request: "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
      NotAnUpgrade(testDescription: "a short key", request: upgradeRequest(key: "c2hvcnQ=")),
      NotAnUpgrade(
        testDescription: "version 8",
        request: upgradeRequest().replacingOccurrences(of: "Version: 13", with: "Version: 8")),
      NotAnUpgrade(
        testDescription: "no key",
        request: upgradeRequest().replacingOccurrences(of: "Sec-WebSocket-Key", with: "X-Key")),
      NotAnUpgrade(
        testDescription: "a POST",
        request: upgradeRequest().replacingOccurrences(of: "GET", with: "POST")),
    ]
  }

  @Test("refuses to upgrade a request that does not ask for it", arguments: NotAnUpgrade.all)
  func notAnUpgrade(_ case: NotAnUpgrade) async throws {
    let server = try LoopbackServer { _, response in
      do {
        _ = try await response.upgradeToWebSocket()
        try await response.send(status: 200, text: "upgraded")
      } catch {
        try await response.send(status: 400, headers: ["Connection": "close"], text: "\(error)")
      }
    }
    defer { server.stop() }

    let answer = try await RawHTTPConnection.exchange(port: server.port, sending: `case`.request)

    #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
    #expect(answer.contains("not a WebSocket upgrade"))
  }

  @Test("ends receiveFrame with nil once the client closes the TCP connection")
  func clientCloses() async throws {
    let (outcomes, report) = AsyncStream.makeStream(of: LoopbackWebSocket.Frame?.self)
    let server = try LoopbackServer { _, response in
      let socket = try await response.upgradeToWebSocket()
      report.yield(try await socket.receiveFrame())
      report.yield(try await socket.receiveFrame())
      await socket.clientClosedConnection()
      report.yield(nil)
    }
    defer { server.stop() }

    try await onOwnThread {
      var client = try RawWebSocketClient(port: server.port)
      _ = try client.handshake(Self.upgradeRequest())
      try client.sendFrame(WebSocketFrame(opcode: .binary, payload: [9]))
      client.disconnect()
    }

    var iterator = outcomes.makeAsyncIterator()
    #expect(await iterator.next() == LoopbackWebSocket.Frame.binary(Data([9])).masked)
    #expect(await iterator.next() == .some(nil))
    #expect(await iterator.next() == .some(nil))
  }

  @Test("throws for a client's unmasked frame, and sends malformed frames as asked")
  func malformed() async throws {
    let (errors, report) = AsyncStream.makeStream(of: String.self)
    let server = try LoopbackServer { _, response in
      let socket = try await response.upgradeToWebSocket()
      try await socket.send(
        LoopbackWebSocket.Frame(reserved: 0b100, opcode: 0x3, payload: Data([1]), isMasked: true))
      try await socket.send(.ping(fin: false))
      try await socket.sendRaw(Data([0x82]))
      do {
        _ = try await socket.receiveFrame()
        report.yield("no error")
      } catch {
        report.yield("\(error)")
      }
    }
    defer { server.stop() }

    let bytes = try await onOwnThread {
      var client = try RawWebSocketClient(port: server.port)
      defer { client.disconnect() }
      _ = try client.handshake(Self.upgradeRequest())
      try client.sendBytes(WebSocketFrame(opcode: .text, payload: [0x61]).encoded())
      return try client.readToEnd()
    }

    #expect(bytes.count == 10)  // 2 + 4 + 1 bytes of the masked frame, 2 of the ping, 1
    #expect(bytes.prefix(2) == [0xC3, 0x81])  // FIN, RSV1, opcode 3; masked, 1 byte
    var payload = Array(bytes[2..<7])
    WebSocketFrame.applyMask(Array(payload[0..<4]), to: &payload, from: 4)
    #expect(payload[4] == 1)
    #expect(bytes.suffix(3) == [0x09, 0x00, 0x82])  // a ping without FIN, then a frame's first byte
    var iterator = errors.makeAsyncIterator()
    let error = try #require(await iterator.next())
    #expect(error.contains("not masked"))
  }

  @Test("reads a frame larger than what it buffers, and the frame behind it")
  func largeFrame() async throws {
    let (sizes, report) = AsyncStream.makeStream(of: Int.self)
    let server = try LoopbackServer { _, response in
      let socket = try await response.upgradeToWebSocket()
      while let message = try await socket.receiveMessage() { report.yield(message.data.count) }
      report.finish()
    }
    defer { server.stop() }

    try await onOwnThread {
      var client = try RawWebSocketClient(port: server.port)
      defer { client.disconnect() }
      _ = try client.handshake(Self.upgradeRequest())
      try client.sendFrame(
        WebSocketFrame(opcode: .binary, payload: Array(repeating: 7, count: 3 << 20)))
      try client.sendFrame(WebSocketFrame(opcode: .text, payload: Array("end".utf8)))
      try client.sendFrame(.close(.normalClosure))
    }

    #expect(await sizes.reduce(into: []) { $0.append($1) } == [3 << 20, 3])
  }

  @Test("stops reading a client that sends faster than the test reads, and loses nothing")
  func backPressure() async throws {
    let frame = WebSocketFrame(opcode: .binary, payload: Array(repeating: 1, count: 64 << 10))
    let frameCount = 1536  // 96 MiB: more than the kernel's buffers and the server's 1 MiB
    let (stalls, stalled) = AsyncStream.makeStream(of: Void.self)
    let (totals, report) = AsyncStream.makeStream(of: Int.self)
    let server = try LoopbackServer { _, response in
      let socket = try await response.upgradeToWebSocket()
      for await _ in stalls { break }  // read nothing until the client is held back
      var total = 0
      while let message = try await socket.receiveMessage() { total += message.data.count }
      report.yield(total)
    }
    defer { server.stop() }

    let sentBeforeStall = try await onOwnThread {
      var client = try RawWebSocketClient(port: server.port)
      defer { client.disconnect() }
      _ = try client.handshake(Self.upgradeRequest())
      // A send that waits this long means the server stopped reading: it reads at once
      // otherwise. The only wait in this suite, for something that must not happen.
      client.setSendTimeout(milliseconds: 300)
      let bytes = client.masked(frame)
      var sent = 0
      var stallPoint: Int?
      while sent < bytes.count * frameCount {
        let offset = sent % bytes.count
        let count = try client.sendSome(bytes[offset...])
        if count == 0, stallPoint == nil {
          stallPoint = sent
          client.setSendTimeout(milliseconds: 0)
          stalled.yield()
        }
        sent += count
      }
      try client.sendFrame(.close(.normalClosure))
      return stallPoint
    }

    let stallPoint = try #require(sentBeforeStall)
    #expect(stallPoint > 1 << 20)
    #expect(stallPoint < (64 << 10) * frameCount)
    var iterator = totals.makeAsyncIterator()
    #expect(await iterator.next() == (64 << 10) * frameCount)
  }
}

extension LoopbackWebSocket.Frame {
  fileprivate var masked: Self {
    var frame = self
    frame.isMasked = true
    return frame
  }
}
