/// Reads WebSocket frames out of the bytes a connection receives, as they arrive, and
/// refuses what RFC 6455 §5 does not allow before it reads a payload: reserved bits
/// without an extension, an opcode it does not define, a control frame that is fragmented
/// or over 125 bytes, masking the wrong way for its side, and a payload over the limit.
package struct WebSocketFrameReader: Sendable {
  /// The largest payload one frame may carry.
  package var maximumPayload: Int
  /// Frames must be masked (a server reading a client's) or must not be (a client).
  package let readsMaskedFrames: Bool
  private var buffer: [UInt8] = []
  private var start = 0

  package init(maximumPayload: Int, readsMaskedFrames: Bool) {
    self.maximumPayload = maximumPayload
    self.readsMaskedFrames = readsMaskedFrames
  }

  /// Bytes received and not yet read as frames.
  package var bufferedCount: Int { buffer.count - start }

  /// Adds received bytes.
  package mutating func append(_ bytes: some Collection<UInt8>) {
    if start > 0, start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// Adds received bytes from raw memory.
  package mutating func append(_ bytes: UnsafeRawBufferPointer) {
    append(bytes.bindMemory(to: UInt8.self))
  }

  /// The next whole frame, unmasked, or `nil` until more bytes arrive.
  package mutating func next() throws(WebSocketFailure) -> WebSocketFrame? {
    guard let header = try header() else { return nil }
    // The payload's length may be as large as `Int` allows (a limit of `Int.max`): compared,
    // never added to.
    guard buffer.count - start - header.length >= header.payloadLength else { return nil }
    let payloadStart = start + header.length
    var payload = Array(buffer[payloadStart..<payloadStart + header.payloadLength])
    if let mask = header.mask { WebSocketFrame.applyMask(mask, to: &payload, from: 0) }
    start = payloadStart + header.payloadLength
    if start == buffer.count {
      buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
      start = 0
    } else if start > 64 * 1024, start > buffer.count / 2 {
      buffer.removeFirst(start)
      start = 0
    }
    return WebSocketFrame(fin: header.fin, opcode: header.opcode, payload: payload)
  }

  /// The frame still arriving, once its header is in: its opcode, and the unmasked bytes of
  /// its payload that have arrived past the first `offset`, so that a check (UTF-8) can
  /// fail the connection before the frame ends. `nil` before the header is whole.
  package func arrivingPayload(after offset: Int) throws(WebSocketFailure) -> (
    opcode: WebSocketFrame.Opcode, bytes: [UInt8]
  )? {
    guard let header = try header() else { return nil }
    let arrived = min(buffer.count - start - header.length, header.payloadLength)
    guard arrived > offset else { return (header.opcode, []) }
    let payloadStart = start + header.length
    var bytes = Array(buffer[payloadStart + offset..<payloadStart + arrived])
    if let mask = header.mask {
      // The key runs on from the payload's start: rotate it to where these bytes begin.
      let key = (0..<4).map { mask[(offset + $0) & 3] }
      WebSocketFrame.applyMask(key, to: &bytes, from: 0)
    }
    return (header.opcode, bytes)
  }

  /// What a frame's header says.
  private struct Header {
    var fin: Bool
    var opcode: WebSocketFrame.Opcode
    /// The header's own length, masking key included.
    var length: Int
    var payloadLength: Int
    var mask: [UInt8]?
  }

  /// The header of the frame at `start`, or `nil` until it has arrived whole.
  private func header() throws(WebSocketFailure) -> Header? {
    let available = buffer.count - start
    guard available >= 2 else { return nil }
    let first = buffer[start]
    let second = buffer[start + 1]
    let opcode = WebSocketFrame.Opcode(rawValue: first & 0x0F)
    let fin = first & 0x80 != 0
    let reserved = (first >> 4) & 0x07
    guard reserved == 0 else {
      throw WebSocketFailure(.protocolError, "a frame has reserved bits set")
    }
    guard opcode.isDefined else {
      throw WebSocketFailure(.protocolError, "a frame has opcode \(opcode.rawValue)")
    }
    let masked = second & 0x80 != 0
    guard masked == readsMaskedFrames else {
      throw WebSocketFailure(
        .protocolError, masked ? "a server's frame is masked" : "a client's frame is not masked")
    }
    var headerLength = 2
    var length = Int(second & 0x7F)
    if opcode.isControl {
      guard fin else { throw WebSocketFailure(.protocolError, "a control frame is fragmented") }
      guard length <= 125 else {
        throw WebSocketFailure(.protocolError, "a control frame is over 125 bytes")
      }
    }
    if length == 126 {
      guard available >= 4 else { return nil }
      length = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
      headerLength = 4
    } else if length == 127 {
      guard available >= 10 else { return nil }
      var wide: UInt64 = 0
      for index in 0..<8 { wide = wide << 8 | UInt64(buffer[start + 2 + index]) }
      guard wide >> 63 == 0 else {
        throw WebSocketFailure(.protocolError, "a frame's length has its top bit set")
      }
      guard wide <= UInt64(maximumPayload) else { throw tooBig(wide) }
      length = Int(wide)
      headerLength = 10
    }
    guard length <= maximumPayload else { throw tooBig(UInt64(length)) }
    var mask: [UInt8]?
    if masked {
      guard available >= headerLength + 4 else { return nil }
      mask = Array(buffer[start + headerLength..<start + headerLength + 4])
      headerLength += 4
    }
    return Header(
      fin: fin, opcode: opcode, length: headerLength, payloadLength: length, mask: mask)
  }

  private func tooBig(_ length: UInt64) -> WebSocketFailure {
    WebSocketFailure(
      .messageTooBig, "a frame of \(length) bytes is over the limit of \(maximumPayload)")
  }
}

/// A breach of the WebSocket protocol, and the code the connection closes with.
package struct WebSocketFailure: Error, Sendable, Equatable {
  package let code: WebSocketCloseCode
  package let reason: String

  package init(_ code: WebSocketCloseCode, _ reason: String) {
    self.code = code
    self.reason = reason
  }
}
