/// One WebSocket frame (RFC 6455 §5.2), as the protocol code and the loopback server see
/// it: any opcode and reserved bits, so that tests can send malformed ones.
package struct WebSocketFrame: Sendable, Equatable {
  /// A frame's opcode: the six RFC 6455 defines, and any other value as it came.
  package struct Opcode: RawRepresentable, Sendable, Hashable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue & 0x0F }

    package static let continuation = Opcode(rawValue: 0)
    package static let text = Opcode(rawValue: 1)
    package static let binary = Opcode(rawValue: 2)
    package static let close = Opcode(rawValue: 8)
    package static let ping = Opcode(rawValue: 9)
    package static let pong = Opcode(rawValue: 10)

    /// Close, ping and pong: never fragmented, at most 125 bytes.
    package var isControl: Bool { rawValue & 0x08 != 0 }
    /// One of the six opcodes RFC 6455 defines.
    package var isDefined: Bool { rawValue <= 2 || (8...10).contains(rawValue) }
  }

  /// The last frame of its message.
  package var fin: Bool
  /// RSV1–RSV3 as the low three bits (0 unless an extension was negotiated).
  package var reserved: UInt8
  package var opcode: Opcode
  package var payload: [UInt8]

  package init(fin: Bool = true, reserved: UInt8 = 0, opcode: Opcode, payload: [UInt8] = []) {
    self.fin = fin
    self.reserved = reserved
    self.opcode = opcode
    self.payload = payload
  }

  /// A close frame carrying `code` and `reason` (cut to fit 125 bytes on a UTF-8 boundary),
  /// or an empty one.
  package static func close(_ code: WebSocketCloseCode?, reason: String = "") -> WebSocketFrame {
    guard let code else { return WebSocketFrame(opcode: .close) }
    var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
    var utf8 = Array(reason.utf8.prefix(123))
    // A cut inside a character drops that character.
    while UTF8Validator.string(utf8) == nil { utf8.removeLast() }
    payload += utf8
    return WebSocketFrame(opcode: .close, payload: payload)
  }

  /// The frame on the wire, masked with `mask` when one is given (a client masks every
  /// frame it sends; a server never does).
  package func encoded(mask: UInt32? = nil) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(payload.count + 14)
    bytes.append((fin ? 0x80 : 0) | (reserved & 0x07) << 4 | opcode.rawValue)
    let maskBit: UInt8 = mask == nil ? 0 : 0x80
    switch payload.count {
    case 0...125:
      bytes.append(maskBit | UInt8(payload.count))
    case 126...0xFFFF:
      bytes.append(maskBit | 126)
      bytes.append(UInt8(payload.count >> 8))
      bytes.append(UInt8(payload.count & 0xFF))
    default:
      bytes.append(maskBit | 127)
      for shift in stride(from: 56, through: 0, by: -8) {
        bytes.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(shift)))
      }
    }
    guard let mask else {
      bytes += payload
      return bytes
    }
    let key = [
      UInt8(mask >> 24), UInt8((mask >> 16) & 0xFF), UInt8((mask >> 8) & 0xFF), UInt8(mask & 0xFF),
    ]
    bytes += key
    let start = bytes.count
    bytes += payload
    Self.applyMask(key, to: &bytes, from: start)
    return bytes
  }

  /// XORs `bytes[from...]` with the 4-byte `key` (masking and unmasking are the same).
  package static func applyMask(_ key: [UInt8], to bytes: inout [UInt8], from start: Int) {
    bytes.withUnsafeMutableBufferPointer { buffer in
      var index = start
      var k = 0
      while index < buffer.count {
        buffer[index] ^= key[k]
        k = (k + 1) & 3
        index += 1
      }
    }
  }
}
