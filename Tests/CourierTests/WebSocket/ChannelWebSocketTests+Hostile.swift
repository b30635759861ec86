import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a hostile server tries on the engine: answers and frames that would make the client
/// hold more than its limits say.
extension ChannelWebSocketTests {
  @Test("Empty messages count against the read-ahead: a server cannot queue endless ones")
  func emptyMessagesFillTheReadAhead() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel, options: options(readAhead: 1024))
    for _ in 0..<10_000 { channel.push(WebSocketFrame(opcode: .text)) }
    // Two bytes each on the wire: reading stops with the read-ahead full, not once all
    // 10,000 wait in memory.
    await eventually {
      connection.engine.state.withLock { $0.roomWaiter != nil } || channel.isReading
    }
    #expect(!channel.isReading)
    #expect(connection.engine.state.withLock { $0.inbox.count } < 100)
    #expect(try await connection.receive() == .text(""))
    connection.cancel()
  }

  @Test("Empty messages within the read-ahead all arrive, in order (the good path beside it)")
  func emptyMessagesArrive() async throws {
    let channel = ScriptedChannel()
    let connection = try await open(channel)
    for index in 0..<1000 {
      channel.push(WebSocketFrame(opcode: index.isMultiple(of: 2) ? .text : .binary))
    }
    channel.push(WebSocketFrame(opcode: .text, payload: Array("last".utf8)))
    for index in 0..<1000 {
      let expected: WebSocketMessage = index.isMultiple(of: 2) ? .text("") : .binary(Data())
      #expect(try await connection.receive() == expected)
    }
    #expect(try await connection.receive() == .text("last"))
    connection.cancel()
  }

  /// A `401` to the upgrade, its body chunked in `chunks` and never ended, the refusal's body
  /// kept at 1,000 bytes.
  func refusal(chunkedIn chunks: [String]) async -> (HTTPError?, ScriptedChannel) {
    let channel = ScriptedChannel()
    var options = options()
    options.transport.bufferSize = 1000
    channel.push(Data("HTTP/1.1 401 Unauthorized\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
    for chunk in chunks { channel.push(Data(chunk.utf8)) }
    let outcome = Locked<HTTPError??>(nil)
    let opening = Task {
      do throws(HTTPError) {
        _ = try await ChannelWebSocket.open(Self.request, options: options) { _, _ in channel }
        outcome.withLock { $0 = .some(nil) }
      } catch {
        outcome.withLock { $0 = error }
      }
    }
    // The opening has its answer, or has read everything and waits for more.
    await eventually { outcome.withLock { $0 != nil } || channel.isReading }
    let error = outcome.withLock { $0 }
    opening.cancel()
    await opening.value
    return (error ?? .cancelled, channel)
  }

  @Test("A chunked refusal longer than the limit keeps the start of its data, not its framing")
  func longChunkedRefusal() async throws {
    let chunk = "100\r\n" + String(repeating: "a", count: 256) + "\r\n"
    let (error, channel) = await refusal(chunkedIn: Array(repeating: chunk, count: 8))
    #expect(error?.response?.status == 401)
    #expect(error?.response?.body == Data(String(repeating: "a", count: 1000).utf8))
    #expect(channel.isClosed)
  }

  @Test("A short chunked refusal is read to its last chunk (the good path beside it)")
  func shortChunkedRefusal() async throws {
    let (error, _) = await refusal(chunkedIn: ["4\r\nno, \r\n", "7\r\nsorry.\n\r\n", "0\r\n\r\n"])
    #expect(error?.response?.status == 401)
    #expect(error?.response?.body == Data("no, sorry.\n".utf8))
  }

  @Test("A chunked refusal's framing is bounded too: tiny chunks with long extensions end it")
  func chunkedRefusalFraming() async throws {
    let chunk = "1;" + String(repeating: "x", count: 100) + "\r\na\r\n"
    let (error, channel) = await refusal(chunkedIn: Array(repeating: chunk, count: 30))
    #expect(error?.response?.status == 401)
    let body = try #require(error?.response?.body)
    #expect(!body.isEmpty && body.count < 30 && body.allSatisfy { $0 == UInt8(ascii: "a") })
    #expect(channel.isClosed)
  }

  /// The refusal `answer` brings, sent in `pieces`.
  func refusal(_ answer: [UInt8], inPiecesOf size: Int) async -> HTTPError? {
    let channel = ScriptedChannel()
    for start in stride(from: 0, to: answer.count, by: size) {
      channel.push(Data(answer[start..<min(start + size, answer.count)]))
    }
    channel.push(nil)
    return await #expect(throws: HTTPError.self) {
      _ = try await ChannelWebSocket.open(Self.request, options: options()) { _, _ in channel }
    }
  }

  @Test("An answer dribbled a byte at a time is read in one pass, not once per byte")
  func dribbledAnswer() async throws {
    // A 48 KiB head and 32 KiB of one-byte chunks: looked at again on every read, they took
    // minutes; read once, they take as long as the same answer sent whole.
    let head =
      "HTTP/1.1 401 Unauthorized\r\nX-Padding: \(String(repeating: "p", count: 48 * 1024))\r\n"
      + "Transfer-Encoding: chunked\r\n\r\n"
    let answer = Array((head + String(repeating: "1\r\na\r\n", count: 32 * 1024 / 6)).utf8)
    let dribbled = await refusal(answer, inPiecesOf: 1)
    #expect(dribbled?.response?.status == 401)
    #expect(dribbled?.response?.body == Data(String(repeating: "a", count: 32 * 1024 / 6).utf8))
    #expect(dribbled?.response?.headers["X-Padding"]?.count == 48 * 1024)
    // The good path beside it: the same answer sent whole.
    let whole = await refusal(answer, inPiecesOf: answer.count)
    #expect(whole?.response == dribbled?.response)
  }

  /// Opens with `subprotocols` offered, the server answering `101` with the right
  /// `Sec-WebSocket-Accept` and `fields` (each a line).
  func open(offering subprotocols: [String], answer fields: [String]) async -> Result<
    String?, HTTPError
  > {
    let channel = ScriptedChannel()
    var options = options()
    options.subprotocols = subprotocols
    let answering = Task {
      let request = await channel.upgradeRequest()
      let key = request.split(separator: "\r\n").first { $0.hasPrefix("Sec-WebSocket-Key: ") }?
        .dropFirst("Sec-WebSocket-Key: ".count)
      let accept = WebSocketHandshake.accept(for: String(key ?? ""))
      let head = (["HTTP/1.1 101 Switching Protocols", "Sec-WebSocket-Accept: \(accept)"] + fields)
        .joined(separator: "\r\n")
      channel.push(Data((head + "\r\n\r\n").utf8))
    }
    defer { answering.cancel() }
    do throws(HTTPError) {
      let socket = try await ChannelWebSocket.open(Self.request, options: options) { _, _ in
        channel
      }
      socket.connection.cancel()
      return .success(socket.subprotocol)
    } catch {
      #expect(channel.isClosed)
      return .failure(error)
    }
  }

  @Test(
    "A 101 without the upgrade's tokens, or choosing what was not offered, fails the opening",
    arguments: [
      (["Connection: Upgrade"], [String]()),
      (["Upgrade: websocket"], []),
      (["Upgrade: h2c", "Connection: Upgrade"], []),
      (["Upgrade: websocket", "Connection: keep-alive"], []),
      (["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Protocol: chat"], []),
      (["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Protocol: chat"], ["json"]),
      (
        ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Protocol: json, chat"],
        ["json", "chat"]
      ),
      (
        [
          "Upgrade: websocket", "Connection: Upgrade",
          "Sec-WebSocket-Extensions: permessage-deflate",
        ], []
      ),
    ])
  func answerNotAnUpgrade(fields: [String], offered: [String]) async throws {
    let outcome = await open(offering: offered, answer: fields)
    guard case .failure(.transport(let error)) = outcome else {
      Issue.record("expected badServerResponse, got \(outcome)")
      return
    }
    #expect(error.code == .badServerResponse)
  }

  @Test(
    "Tokens are read in any case, among others; a subprotocol offered is chosen (the good path)")
  func answerAnUpgrade() async throws {
    let outcome = await open(
      offering: ["json", "chat"],
      answer: [
        "Upgrade: WebSocket", "Connection: keep-alive, UPGRADE", "Sec-WebSocket-Protocol: chat",
      ])
    #expect(outcome == .success("chat"))
    #expect(
      await open(offering: [], answer: ["Upgrade: websocket", "Connection: upgrade"])
        == .success(nil))
  }
}
