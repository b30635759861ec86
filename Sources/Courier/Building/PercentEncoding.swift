/// Percent-encoding for URL paths and query components (RFC 3986).
enum PercentEncoding {
  private static let hexDigits = Array("0123456789ABCDEF".utf8)

  /// Whether `byte` is an RFC 3986 unreserved character: `A–Z a–z 0–9 - . _ ~`.
  static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
      UInt8(ascii: "_"), UInt8(ascii: "~"):
      true
    default:
      false
    }
  }

  /// Whether `byte` may stand unencoded in a path segment besides unreserved ones:
  /// sub-delims, `:` and `@` (RFC 3986 `pchar`).
  static func isPathCharacter(_ byte: UInt8) -> Bool {
    if isUnreserved(byte) { return true }
    switch byte {
    case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
      UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
      UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"),
      UInt8(ascii: "@"):
      return true
    default:
      return false
    }
  }

  /// A query name or value with everything but unreserved characters encoded, so `+`, `&`,
  /// `=`, `/`, `?`, spaces and non-ASCII text all survive the trip to the server.
  static func encodeComponent(_ text: String) -> String {
    encode(text) { isUnreserved($0) }
  }

  /// `text` with every byte for which `keep` is false written as `%XX`.
  static func encode(_ text: String, keeping keep: (UInt8) -> Bool) -> String {
    let utf8 = text.utf8
    guard let first = utf8.firstIndex(where: { !keep($0) }) else { return text }
    var bytes = [UInt8]()
    bytes.reserveCapacity(utf8.count + 16)
    bytes.append(contentsOf: utf8[..<first])
    for byte in utf8[first...] {
      if keep(byte) {
        bytes.append(byte)
      } else {
        bytes.append(UInt8(ascii: "%"))
        bytes.append(hexDigits[Int(byte >> 4)])
        bytes.append(hexDigits[Int(byte & 0x0F)])
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Whether every `%` in `text` starts a two-digit hexadecimal escape.
  static func hasValidEscapes(_ text: String) -> Bool {
    var pending = 0
    for byte in text.utf8 {
      if pending > 0 {
        guard isHexDigit(byte) else { return false }
        pending -= 1
      } else if byte == UInt8(ascii: "%") {
        pending = 2
      }
    }
    return pending == 0
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
      UInt8(ascii: "A")...UInt8(ascii: "F"):
      true
    default:
      false
    }
  }
}
