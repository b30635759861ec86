import Foundation
import Testing

@testable import Courier

/// A text frame's UTF-8 is checked as its bytes arrive, not once the frame is whole: a
/// frame may be as large as the message limit and arrive slowly, and Autobahn 6.4.3 and
/// 6.4.4 expect the connection to fail at the invalid bytes.
@Suite("WebSocket text checked as it arrives")
struct WebSocketArrivingTextTests {
  /// κόσμε, then U+110000 as UTF-8 would write it (invalid at its second byte), then text.
  private let valid: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5]
  private let invalid: [UInt8] = [0xF4, 0x90, 0x80, 0x80]

  /// Feeds `wire` to a client's (or server's) readers `chunk` bytes at a time, checking what
  /// has arrived after each chunk as a connection does; how many bytes had arrived when it
  /// failed, and what each whole frame meant.
  private func feed(_ wire: [UInt8], chunk: Int, masked: Bool = false) -> (
    failedAt: Int?, outputs: [WebSocketMessageReader.Output]
  ) {
    var frames = WebSocketFrameReader(maximumPayload: 1 << 20, readsMaskedFrames: masked)
    var messages = WebSocketMessageReader(maximumMessage: 1 << 20)
    var outputs: [WebSocketMessageReader.Output] = []
    for start in stride(from: 0, to: wire.count, by: chunk) {
      frames.append(wire[start..<min(start + chunk, wire.count)])
      do throws(WebSocketFailure) {
        while let frame = try frames.next() {
          if let output = try messages.read(frame) { outputs.append(output) }
        }
        try messages.checkArriving(frames)
      } catch {
        #expect(error.code == .invalidFramePayloadData)
        return (min(start + chunk, wire.count), outputs)
      }
    }
    return (nil, outputs)
  }

  @Test("Invalid UTF-8 fails the connection when its bytes arrive, before the frame ends")
  func failsBeforeTheFrameEnds() {
    let payload = valid + invalid + Array("edited".utf8)
    let wire = WebSocketFrame(opcode: .text, payload: payload).encoded(mask: nil)
    // Header (2 bytes) + κόσμε (11) + the invalid sequence's first two bytes.
    let outcome = feed(wire, chunk: 1)
    #expect(outcome.failedAt == 2 + valid.count + 2)
    #expect(outcome.failedAt! < wire.count)
  }

  @Test("Invalid UTF-8 in a continuation of a text message fails before that frame ends")
  func failsInAContinuation() {
    let wire =
      WebSocketFrame(fin: false, opcode: .text, payload: valid).encoded(mask: nil)
      + WebSocketFrame(opcode: .continuation, payload: invalid + Array("tail".utf8)).encoded(
        mask: nil)
    let outcome = feed(wire, chunk: 3)
    #expect(outcome.failedAt != nil)
    #expect(outcome.failedAt! < wire.count)
  }

  @Test(
    "Valid text cut anywhere, even inside a character, reads as one message",
    arguments: [1, 2, 3, 5, 7, 64])
  func validTextCutAnywhere(chunk: Int) {
    let text = "κόσμε — Hello-µ@ßöäüàá-UTF-8!! 😀"
    let wire =
      WebSocketFrame(fin: false, opcode: .text, payload: Array(text.utf8)).encoded(mask: nil)
      + WebSocketFrame(opcode: .ping, payload: [7]).encoded(mask: nil)
      + WebSocketFrame(opcode: .continuation, payload: Array(text.utf8)).encoded(mask: nil)
      + WebSocketFrame(opcode: .text, payload: Array(text.utf8)).encoded(mask: nil)
    let outcome = feed(wire, chunk: chunk)
    #expect(outcome.failedAt == nil)
    #expect(outcome.outputs == [.ping([7]), .message(.text(text + text)), .message(.text(text))])
  }

  @Test("A masked frame (a server reading a client) is unmasked before it is checked")
  func maskedFrames() {
    let text = "κόσμε κόσμε κόσμε"
    let wire = WebSocketFrame(opcode: .text, payload: Array(text.utf8)).encoded(mask: 0xA1B2_C3D4)
    for chunk in [1, 3, 6] {
      let outcome = feed(wire, chunk: chunk, masked: true)
      #expect(outcome.failedAt == nil, "chunk \(chunk)")
      #expect(outcome.outputs == [.message(.text(text))], "chunk \(chunk)")
    }
    let bad = WebSocketFrame(opcode: .text, payload: valid + invalid).encoded(mask: 0x0102_0304)
    // The invalid byte is the payload's 13th, the wire's 19th: in the chunk that ends at 20.
    #expect(feed(bad, chunk: 5, masked: true).failedAt == 20)
  }

  @Test("Binary payloads are not checked as they arrive")
  func binaryIsNotText() {
    let wire = WebSocketFrame(opcode: .binary, payload: invalid + invalid).encoded(mask: nil)
    let outcome = feed(wire, chunk: 1)
    #expect(outcome.failedAt == nil)
    #expect(outcome.outputs == [.message(.binary(Data(invalid + invalid)))])
  }
}
