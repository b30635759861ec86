import Foundation
import Testing

@testable import Courier

@Suite("WebSocket messages from frames")
struct WebSocketMessageReaderTests {
  private typealias Output = WebSocketMessageReader.Output

  private func outputs(_ frames: [WebSocketFrame], limit: Int = 1 << 20) throws(WebSocketFailure)
    -> [Output]
  {
    var reader = WebSocketMessageReader(maximumMessage: limit)
    var seen: [Output] = []
    for frame in frames {
      if let output = try reader.read(frame) { seen.append(output) }
    }
    return seen
  }

  private func failure(_ frames: [WebSocketFrame], limit: Int = 1 << 20) -> WebSocketFailure? {
    do {
      _ = try outputs(frames, limit: limit)
      return nil
    } catch {
      return error
    }
  }

  private func text(_ string: String, fin: Bool = true, first: Bool = true) -> WebSocketFrame {
    WebSocketFrame(fin: fin, opcode: first ? .text : .continuation, payload: Array(string.utf8))
  }

  @Test("Fragments join into one message, with pings answered between them")
  func fragments() throws {
    let frames = [
      text("Hel", fin: false), WebSocketFrame(opcode: .ping, payload: [1]),
      text("lo", fin: false, first: false), text(", world", first: false),
    ]
    #expect(try outputs(frames) == [.ping([1]), .message(.text("Hello, world"))])
  }

  @Test("A binary message and a pong come through as they are")
  func binary() throws {
    let frames = [
      WebSocketFrame(opcode: .binary, payload: [0, 255]), WebSocketFrame(opcode: .pong),
    ]
    #expect(try outputs(frames) == [.message(.binary(Data([0, 255]))), .pong([])])
  }

  @Test("Fragments out of order are a protocol error")
  func outOfOrder() {
    #expect(failure([text("a", first: false)])?.code == .protocolError)
    #expect(failure([text("a", fin: false), text("b")])?.code == .protocolError)
  }

  @Test("Text that is not UTF-8 fails at the first bad fragment, not at the end")
  func invalidUTF8() {
    let bad = WebSocketFrame(fin: false, opcode: .text, payload: [0xCE, 0xBA, 0xED, 0xA0, 0x80])
    #expect(failure([bad])?.code == .invalidFramePayloadData)
    // A character split between fragments is fine...
    let split = [
      WebSocketFrame(fin: false, opcode: .text, payload: [0xCE]),
      WebSocketFrame(opcode: .continuation, payload: [0xBA]),
    ]
    #expect(try! outputs(split) == [.message(.text("κ"))])
    // ...but not at the message's end.
    #expect(
      failure([WebSocketFrame(opcode: .text, payload: [0xCE])])?.code == .invalidFramePayloadData)
  }

  @Test(
    "UTF-8 is held to RFC 3629",
    arguments: [
      ([0xC0, 0x80], false), ([0xE0, 0x80, 0x80], false), ([0xF4, 0x90, 0x80, 0x80], false),
      ([0xED, 0xA0, 0x80], false), ([0xFF], false), ([0xF0, 0x9F, 0x98, 0x80], true),
      ([0xEF, 0xBF, 0xBF], true), ([0xF4, 0x8F, 0xBF, 0xBF], true), ([0x7F], true),
    ] as [([UInt8], Bool)])
  func utf8(bytes: [UInt8], valid: Bool) {
    var validator = UTF8Validator()
    #expect((validator.validate(bytes) && validator.isComplete) == valid)
  }

  @Test("A message over the limit fails with 1009, counted over its fragments")
  func limit() {
    let frames = [text("12345", fin: false), text("67890", first: false)]
    #expect(failure(frames, limit: 9)?.code == .messageTooBig)
    #expect(failure(frames, limit: 10) == nil)
  }

  @Test("Close frames: code and reason, none, and malformed ones")
  func closeFrames() throws {
    #expect(try outputs([.close(.goingAway, reason: "bye")]) == [.close(.goingAway, "bye")])
    #expect(try outputs([.close(nil)]) == [.close(nil, "")])
    #expect(failure([WebSocketFrame(opcode: .close, payload: [3])])?.code == .protocolError)
    for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000] {
      let frame = WebSocketFrame(opcode: .close, payload: [UInt8(code >> 8), UInt8(code & 255)])
      #expect(failure([frame])?.code == .protocolError, "code \(code)")
    }
    for code: UInt16 in [1012, 1013, 1014, 3000, 4999] {
      let frame = WebSocketFrame(opcode: .close, payload: [UInt8(code >> 8), UInt8(code & 255)])
      #expect(try outputs([frame]) == [.close(WebSocketCloseCode(rawValue: code), "")])
    }
    let badReason = WebSocketFrame(opcode: .close, payload: [0x03, 0xE8, 0xFF])
    #expect(failure([badReason])?.code == .invalidFramePayloadData)
  }
}
