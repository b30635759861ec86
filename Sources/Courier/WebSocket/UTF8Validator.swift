/// Checks UTF-8 as it arrives in pieces, so that a text message split over frames fails
/// at the first byte that cannot start or continue a well-formed sequence (RFC 3629: no
/// overlong forms, no surrogates, nothing above U+10FFFF), not once the message ends.
package struct UTF8Validator: Sendable {
  /// Continuation bytes the current sequence still needs.
  private var needed = 0
  /// The range the next continuation byte must fall in.
  private var lower: UInt8 = 0x80
  private var upper: UInt8 = 0xBF

  package init() {}

  /// Whether everything so far is UTF-8 or the start of it.
  package mutating func validate(_ bytes: some Sequence<UInt8>) -> Bool {
    for byte in bytes {
      if needed == 0 {
        switch byte {
        case 0x00...0x7F: continue
        case 0xC2...0xDF: needed = 1
        case 0xE0: (needed, lower) = (2, 0xA0)
        case 0xE1...0xEC, 0xEE, 0xEF: needed = 2
        case 0xED: (needed, upper) = (2, 0x9F)
        case 0xF0: (needed, lower) = (3, 0x90)
        case 0xF1...0xF3: needed = 3
        case 0xF4: (needed, upper) = (3, 0x8F)
        default: return false
        }
      } else {
        guard byte >= lower, byte <= upper else { return false }
        (lower, upper) = (0x80, 0xBF)
        needed -= 1
      }
    }
    return true
  }

  /// Whether the bytes so far end at a character boundary.
  package var isComplete: Bool { needed == 0 }

  /// `bytes` as a string when they are well-formed UTF-8, else `nil` (what
  /// `String(validating:as:)` does from macOS 15 and iOS 18, for every deployment target).
  package static func string(_ bytes: some Collection<UInt8>) -> String? {
    var validator = UTF8Validator()
    guard validator.validate(bytes), validator.isComplete else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }
}
