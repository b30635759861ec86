import Foundation
import Testing

@testable import Courier

@Suite("WebSocket frames")
struct WebSocketFrameTests {
  private func read(_ bytes: [UInt8], limit: Int = 1 << 20, masked: Bool = false)
    throws(WebSocketFailure) -> WebSocketFrame?
  {
    var reader = WebSocketFrameReader(maximumPayload: limit, readsMaskedFrames: masked)
    reader.append(bytes)
    return try reader.next()
  }

  @Test("RFC 6455's examples read as they say: unmasked and masked Hello, a ping")
  func rfcExamples() throws {
    let hello = WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))
    #expect(try read([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]) == hello)
    let masked: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
    #expect(try read(masked, masked: true) == hello)
    #expect(hello.encoded(mask: 0x37fa_213d) == masked)
    #expect(try read([0x89, 0x05] + Array("Hello".utf8))?.opcode == .ping)
  }

  @Test("Lengths of 125, 126, 65535 and 65536 bytes take the 7-, 16- and 64-bit forms")
  func lengths() throws {
    for count in [0, 125, 126, 65535, 65536] {
      let frame = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: count))
      let bytes = frame.encoded()
      let header = count <= 125 ? 2 : count <= 65535 ? 4 : 10
      #expect(bytes.count == header + count)
      #expect(try read(bytes) == frame)
      #expect(try read(frame.encoded(mask: 0xdead_beef), masked: true) == frame)
    }
  }

  @Test("A frame split anywhere is read once all of it has come")
  func splitFrames() throws {
    let frame = WebSocketFrame(opcode: .binary, payload: Array(0..<200).map(UInt8.init))
    let bytes = frame.encoded() + WebSocketFrame(opcode: .ping).encoded()
    for cut in 0...bytes.count {
      var reader = WebSocketFrameReader(maximumPayload: 1000, readsMaskedFrames: false)
      reader.append(bytes[..<cut])
      var seen: [WebSocketFrame] = []
      while let next = try reader.next() { seen.append(next) }
      reader.append(bytes[cut...])
      while let next = try reader.next() { seen.append(next) }
      #expect(seen == [frame, WebSocketFrame(opcode: .ping)])
    }
  }

  @Test(
    "What RFC 6455 §5 forbids is refused before the payload, with the code to close with",
    arguments: [
      ([0xC1, 0x00], WebSocketCloseCode.protocolError),  // RSV1 without an extension
      ([0x83, 0x00], .protocolError),  // opcode 3 is reserved
      ([0x8B, 0x00], .protocolError),  // opcode 11 is reserved
      ([0x09, 0x00], .protocolError),  // a fragmented ping
      ([0x89, 0x7E, 0x00, 0x7E], .protocolError),  // a 126-byte ping
      ([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], .protocolError),  // 64-bit length, top bit set
      ([0x82, 0x85, 1, 2, 3, 4], .protocolError),  // a masked frame to a client
      ([0x82, 0x7E, 0x04, 0x01], .messageTooBig),  // 1025 bytes over a 1024 limit
    ] as [([UInt8], WebSocketCloseCode)])
  func refusals(bytes: [UInt8], code: WebSocketCloseCode) {
    #expect(throws: WebSocketFailure.self) { try read(bytes, limit: 1024) }
    do {
      _ = try read(bytes, limit: 1024)
    } catch {
      #expect(error.code == code)
    }
  }

  /// A limit of `Int.max` ("no limit") let the longest length a header can give (2⁶³ − 1)
  /// through, and adding the header's length to it overflowed: a hostile server's frame
  /// header crashed the process.
  @Test("The longest frame a header can announce, under a limit of Int.max, waits for its bytes")
  func longestFrame() throws {
    let header: [UInt8] = [0x82, 0x7F, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    for masked in [false, true] {
      var reader = WebSocketFrameReader(maximumPayload: .max, readsMaskedFrames: masked)
      reader.append(masked ? [header[0], header[1] | 0x80] + header[2...] + [1, 2, 3, 4] : header)
      reader.append([1, 2, 3])
      #expect(try reader.next() == nil)
      var messages = WebSocketMessageReader(maximumMessage: .max)
      try messages.checkArriving(reader)
    }
  }

  @Test("A frame whose bytes have all come is read under a limit of Int.max (the good path)")
  func wholeFrameWithoutLimit() throws {
    let frame = WebSocketFrame(opcode: .binary, payload: [1, 2, 3])
    #expect(try read(frame.encoded(), limit: .max) == frame)
  }

  @Test("A client's frame that is not masked is refused by a server")
  func unmaskedToServer() {
    #expect(throws: WebSocketFailure.self) { try read([0x81, 0x00], masked: true) }
  }

  @Test("A close frame's reason is cut to fit 125 bytes without splitting a character")
  func closeReason() {
    let frame = WebSocketFrame.close(.normalClosure, reason: String(repeating: "é", count: 100))
    #expect(frame.payload.count <= 125)
    #expect(String(bytes: frame.payload[2...], encoding: .utf8) != nil)  // valid UTF-8 (macOS 13)
    #expect(WebSocketFrame.close(nil).payload.isEmpty)
  }

  @Test("The handshake's accept value is RFC 6455's example, and SHA-1 its test vectors")
  func accept() {
    #expect(
      WebSocketHandshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    func hex(_ text: String) -> String {
      SHA1.digest(Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
    #expect(hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
    #expect(hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    #expect(
      hex(String(repeating: "a", count: 1000)) == "291e9a6c66994949b57ba5e650361e98fc36b1ba")
  }
}
