import Foundation

extension HTTPResponse {
  /// The body as text, or `nil` when it does not decode: in the encoding a byte-order mark
  /// names, else in the `charset` of its `Content-Type`, else as UTF-8. The charsets are
  /// UTF-8, UTF-16 (`utf-16` without a mark is little-endian), and ISO-8859-1, US-ASCII and
  /// windows-1252, which are read as windows-1252, as browsers do (the WHATWG Encoding
  /// standard).
  public var text: String? { try? BodyText.decode(body, contentType: headers["Content-Type"]) }
}

/// Text from body bytes, as the WHATWG Encoding standard's "decode" reads them: a byte-order
/// mark decides the encoding, then the media type's `charset` label.
enum BodyText {
  /// The text of `body`, or a failure that names the encoding it did not decode in.
  static func decode(_ body: Data, contentType: String?) throws(DecodingFailure) -> String {
    let (encoding, start) = encoding(of: body, contentType: contentType)
    let bytes = body.dropFirst(start)
    let text: String?
    switch encoding {
    case .utf8: text = String(data: bytes, encoding: .utf8)
    case .utf16LittleEndian: text = utf16(bytes, bigEndian: false)
    case .utf16BigEndian: text = utf16(bytes, bigEndian: true)
    case .windows1252: text = windows1252(bytes)
    case .unknown(let label):
      throw DecodingFailure(
        reason: "the body's charset '\(label)' is not one Courier decodes (UTF-8, UTF-16, "
          + "ISO-8859-1, US-ASCII, windows-1252); decode it from Data")
    }
    guard let text else {
      throw DecodingFailure(reason: "the body is not valid \(encoding.name) text")
    }
    return text
  }

  enum Encoding: Equatable {
    case utf8, utf16LittleEndian, utf16BigEndian, windows1252
    case unknown(String)

    var name: String {
      switch self {
      case .utf8: "UTF-8"
      case .utf16LittleEndian: "UTF-16LE"
      case .utf16BigEndian: "UTF-16BE"
      case .windows1252: "windows-1252"
      case .unknown(let label): label
      }
    }
  }

  /// The encoding and where the text starts (after a byte-order mark).
  static func encoding(of body: Data, contentType: String?) -> (Encoding, Int) {
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8, 3) }
    if body.starts(with: [0xFF, 0xFE]) { return (.utf16LittleEndian, 2) }
    if body.starts(with: [0xFE, 0xFF]) { return (.utf16BigEndian, 2) }
    guard let contentType, let label = charset(in: contentType) else { return (.utf8, 0) }
    switch label.lowercased() {
    case "utf-8", "utf8", "unicode-1-1-utf-8": return (.utf8, 0)
    case "utf-16", "utf-16le", "unicode", "ucs-2": return (.utf16LittleEndian, 0)
    case "utf-16be", "unicodefffe": return (.utf16BigEndian, 0)
    case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "l1", "us-ascii", "ascii",
      "windows-1252", "cp1252", "x-cp1252", "cp819", "ibm819", "iso-ir-100", "csisolatin1":
      return (.windows1252, 0)
    default: return (.unknown(label), 0)
    }
  }

  /// The `charset` parameter of a media type (`text/plain; charset="utf-8"`), unquoted.
  static func charset(in contentType: String) -> String? {
    guard contentType.utf8.count > 8, contentType.lowercased().contains("charset") else {
      return nil
    }
    var scanner = HeaderScanner(contentType)
    scanner.skipPast(";")
    while !scanner.isAtEnd {
      scanner.skipWhitespace()
      let name = scanner.token().lowercased()
      scanner.skipWhitespace()
      if scanner.take("=") {
        scanner.skipWhitespace()
        let value = scanner.next == "\"" ? scanner.quotedString() : scanner.token()
        if name == "charset", let value, !value.isEmpty { return value }
      }
      scanner.skipPast(";")
    }
    return nil
  }

  /// UTF-16 in the given byte order; `nil` for an odd byte or a lone surrogate (Foundation
  /// dropped an odd last byte on Linux).
  private static func utf16(_ bytes: Data, bigEndian: Bool) -> String? {
    guard bytes.count.isMultiple(of: 2) else { return nil }
    var units: [UInt16] = []
    units.reserveCapacity(bytes.count / 2)
    var index = bytes.startIndex
    while index < bytes.endIndex {
      let first = UInt16(bytes[index])
      let second = UInt16(bytes[index + 1])
      units.append(bigEndian ? first << 8 | second : second << 8 | first)
      index += 2
    }
    var scalars = String.UnicodeScalarView()
    var decoder = UTF16()
    var iterator = units.makeIterator()
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar): scalars.append(scalar)
      case .emptyInput: return String(scalars)
      case .error: return nil
      }
    }
  }

  /// windows-1252: ASCII and Latin-1 but for 0x80–0x9F, where its own characters stand (the
  /// five it leaves undefined map to the C1 controls of the same number, as WHATWG's table has).
  private static func windows1252(_ bytes: Data) -> String {
    var scalars = String.UnicodeScalarView()
    scalars.reserveCapacity(bytes.count)
    for byte in bytes {
      let value =
        (0x80...0x9F).contains(byte) ? high1252[Int(byte - 0x80)] : UInt32(byte)
      scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
    }
    return String(scalars)
  }

  private static let high1252: [UInt32] = [
    0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
    0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
  ]
}
