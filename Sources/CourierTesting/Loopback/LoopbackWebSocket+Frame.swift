import Courier
import Foundation

extension LoopbackWebSocket {
  /// One WebSocket frame (RFC 6455 §5.2): one received from the client, already unmasked,
  /// or one to send exactly as described, malformed if need be.
  ///
  /// ```swift
  /// try await socket.send(.text("Hel", fin: false))
  /// try await socket.send(.continuation(Data("lo".utf8)))
  /// try await socket.send(Frame(opcode: 0x3, payload: Data([1])))  // an undefined opcode
  /// try await socket.send(Frame(reserved: 0b100, opcode: 0x1))     // RSV1 without an extension
  /// try await socket.send(.ping(fin: false))                       // a fragmented control frame
  /// ```
  public struct Frame: Sendable, Equatable {
    /// Whether this is the last frame of its message.
    public var fin: Bool
    /// RSV1–RSV3 as the low three bits (RSV1 is `0b100`); higher bits are ignored.
    public var reserved: UInt8
    /// The opcode, any 4-bit value: 0 continuation, 1 text, 2 binary, 8 close, 9 ping,
    /// 10 pong, the others undefined. Higher bits are ignored.
    public var opcode: UInt8
    /// The payload, unmasked.
    public var payload: Data
    /// Whether the frame is masked on the wire. A received frame always is (the server
    /// refuses unmasked client frames); one sent is masked with a random key when this is
    /// set, which a server must never do, for testing that a client refuses it.
    public var isMasked: Bool

    /// A frame with the given fields: by default final, without reserved bits, empty,
    /// and unmasked.
    public init(
      fin: Bool = true, reserved: UInt8 = 0, opcode: UInt8, payload: Data = Data(),
      isMasked: Bool = false
    ) {
      self.fin = fin
      self.reserved = reserved
      self.opcode = opcode
      self.payload = payload
      self.isMasked = isMasked
    }

    /// A text frame carrying `text` as UTF-8; the first of a fragmented message when `fin`
    /// is false.
    public static func text(_ text: String, fin: Bool = true) -> Frame {
      Frame(fin: fin, opcode: WebSocketFrame.Opcode.text.rawValue, payload: Data(text.utf8))
    }

    /// A binary frame; the first of a fragmented message when `fin` is false.
    public static func binary(_ data: Data, fin: Bool = true) -> Frame {
      Frame(fin: fin, opcode: WebSocketFrame.Opcode.binary.rawValue, payload: data)
    }

    /// A continuation frame, the next fragment of a message; its last when `fin`.
    public static func continuation(_ data: Data, fin: Bool = true) -> Frame {
      Frame(fin: fin, opcode: WebSocketFrame.Opcode.continuation.rawValue, payload: data)
    }

    /// A ping frame (fragmented, which is not allowed, when `fin` is false).
    public static func ping(_ data: Data = Data(), fin: Bool = true) -> Frame {
      Frame(fin: fin, opcode: WebSocketFrame.Opcode.ping.rawValue, payload: data)
    }

    /// A pong frame.
    public static func pong(_ data: Data = Data()) -> Frame {
      Frame(opcode: WebSocketFrame.Opcode.pong.rawValue, payload: data)
    }

    /// A close frame carrying `code` and `reason` (cut to fit 125 bytes), or an empty one
    /// when `code` is nil. Any code goes, even one no endpoint may send.
    public static func close(code: WebSocketCloseCode?, reason: String = "") -> Frame {
      Frame(WebSocketFrame.close(code, reason: reason))
    }

    /// The frame as read by a ``WebSocketFrameReader`` of a server, which unmasked it.
    init(_ frame: WebSocketFrame, isMasked: Bool = false) {
      self.init(
        fin: frame.fin, reserved: frame.reserved, opcode: frame.opcode.rawValue,
        payload: Data(frame.payload), isMasked: isMasked)
    }

    /// The frame's bytes on the wire.
    var encoded: Data {
      let frame = WebSocketFrame(
        fin: fin, reserved: reserved, opcode: WebSocketFrame.Opcode(rawValue: opcode),
        payload: Array(payload))
      return Data(frame.encoded(mask: isMasked ? UInt32.random(in: .min ... .max) : nil))
    }
  }

  /// The close frame the client sent: its status code, if it carried one, and its reason.
  public struct CloseFrame: Sendable, Equatable {
    /// The status code, or `nil` when the frame carried none (an empty close frame).
    public var code: WebSocketCloseCode?
    /// The reason, decoded as UTF-8 (invalid bytes replaced).
    public var reason: String

    /// A close frame's code and reason.
    public init(code: WebSocketCloseCode?, reason: String = "") {
      self.code = code
      self.reason = reason
    }

    /// The code and reason of a close frame's payload.
    init(payload: Data) {
      let bytes = [UInt8](payload)
      guard bytes.count >= 2 else {
        self.init(code: nil)
        return
      }
      self.init(
        code: WebSocketCloseCode(rawValue: UInt16(bytes[0]) << 8 | UInt16(bytes[1])),
        reason: String(decoding: bytes[2...], as: UTF8.self))
    }
  }
}
