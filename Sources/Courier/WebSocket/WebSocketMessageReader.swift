import Foundation

/// The receiving half of RFC 6455's rules, as a value: takes a connection's frames in
/// order and says what each one means — a whole message, a ping to answer, a pong, the
/// peer's close — or why the connection must fail (fragments out of order, text that is
/// not UTF-8, a message over the limit, a close frame that is malformed).
package struct WebSocketMessageReader: Sendable {
  /// What a frame amounts to.
  package enum Output: Sendable, Equatable {
    /// A whole message.
    case message(WebSocketMessage)
    /// A ping: answer it with a pong carrying the same payload.
    case ping([UInt8])
    /// A pong: the answer to a ping, or a heartbeat.
    case pong([UInt8])
    /// The peer's close frame, with its code (`nil` when it carried none) and reason.
    case close(WebSocketCloseCode?, String)
  }

  /// The largest message accepted, all its fragments together.
  package var maximumMessage: Int
  /// The opcode of the message whose fragments are arriving.
  private var fragmented: WebSocketFrame.Opcode?
  private var fragments: [UInt8] = []
  private var utf8 = UTF8Validator()
  /// Payload bytes of the frame still arriving that ``checkArriving(_:)`` validated already.
  private var checkedAhead = 0

  package init(maximumMessage: Int) {
    self.maximumMessage = maximumMessage
  }

  /// What `frame` means, or `nil` when it is a fragment of a message not yet whole.
  package mutating func read(_ frame: WebSocketFrame) throws(WebSocketFailure) -> Output? {
    switch frame.opcode {
    case .ping: return .ping(frame.payload)
    case .pong: return .pong(frame.payload)
    case .close: return try Self.close(frame.payload)
    case .continuation:
      guard let opcode = fragmented else {
        throw WebSocketFailure(.protocolError, "a continuation frame starts no message")
      }
      return try append(frame, as: opcode)
    default:
      guard fragmented == nil else {
        throw WebSocketFailure(.protocolError, "a new message began inside a fragmented one")
      }
      if checkedAhead == 0 { utf8 = UTF8Validator() }
      fragments.removeAll(keepingCapacity: true)
      return try append(frame, as: frame.opcode)
    }
  }

  private mutating func append(_ frame: WebSocketFrame, as opcode: WebSocketFrame.Opcode)
    throws(WebSocketFailure) -> Output?
  {
    guard fragments.count + frame.payload.count <= maximumMessage else {
      throw WebSocketFailure(
        .messageTooBig, "a message is over the limit of \(maximumMessage) bytes")
    }
    let unchecked = frame.payload.dropFirst(checkedAhead)
    checkedAhead = 0
    if opcode == .text, !utf8.validate(unchecked) {
      throw WebSocketFailure(.invalidFramePayloadData, "a text message is not UTF-8")
    }
    guard frame.fin else {
      fragmented = opcode
      fragments += frame.payload
      return nil
    }
    fragmented = nil
    let bytes: [UInt8]
    if fragments.isEmpty {
      bytes = frame.payload
    } else {
      fragments += frame.payload
      bytes = fragments
      fragments = []
    }
    guard opcode == .text else { return .message(.binary(Data(bytes))) }
    guard utf8.isComplete else {
      throw WebSocketFailure(.invalidFramePayloadData, "a text message ends mid-character")
    }
    return .message(.text(String(decoding: bytes, as: UTF8.self)))
  }

  /// Validates the part of a text frame that has arrived in `frames` before the frame is
  /// whole, so that text that is not UTF-8 fails the connection at once, not once the frame
  /// ends (a frame may be as large as the message limit, and arrive slowly). Call it once
  /// `frames` has no whole frame left.
  package mutating func checkArriving(_ frames: WebSocketFrameReader) throws(WebSocketFailure) {
    guard let (opcode, bytes) = try frames.arrivingPayload(after: checkedAhead), !bytes.isEmpty
    else { return }
    switch opcode {
    case .text where fragmented == nil:
      if checkedAhead == 0 { utf8 = UTF8Validator() }
    case .continuation where fragmented == .text: break
    default: return  // not text, or out of order: the whole frame fails as read(_:) says
    }
    checkedAhead += bytes.count
    if !utf8.validate(bytes) {
      throw WebSocketFailure(.invalidFramePayloadData, "a text message is not UTF-8")
    }
  }

  /// A close frame's code and reason (RFC 6455 §5.5.1, §7.4).
  private static func close(_ payload: [UInt8]) throws(WebSocketFailure) -> Output {
    guard !payload.isEmpty else { return .close(nil, "") }
    guard payload.count >= 2 else {
      throw WebSocketFailure(.protocolError, "a close frame has a one-byte payload")
    }
    let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
    guard code.isSendable else {
      throw WebSocketFailure(.protocolError, "a close frame has code \(code.rawValue)")
    }
    guard let reason = UTF8Validator.string(payload[2...]) else {
      throw WebSocketFailure(.invalidFramePayloadData, "a close frame's reason is not UTF-8")
    }
    return .close(code, reason)
  }
}
