import Foundation

/// Checks header names and values before anything is sent, so that no header can split a
/// request (CR/LF injection).
enum HeaderValidation {
  static func validate(_ headers: HTTPHeaders) throws(HTTPError) {
    for field in headers {
      guard !field.name.isEmpty, field.name.utf8.allSatisfy(isTokenByte) else {
        throw .invalidRequest(
          reason: "the header name '\(printable(field.name))' is not a valid HTTP token")
      }
      for byte in field.value.utf8 where (byte < 0x20 && byte != 0x09) || byte == 0x7F {
        let what = byte == 0x0D || byte == 0x0A ? "CR or LF" : "a control character"
        throw .invalidRequest(reason: "the value of header '\(field.name)' contains \(what)")
      }
    }
  }

  /// Whether `byte` is an RFC 9110 `tchar`.
  static func isTokenByte(_ byte: UInt8) -> Bool {
    if PercentEncoding.isUnreserved(byte) { return true }
    switch byte {
    case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"),
      UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
      UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "|"):
      return true
    default:
      return false
    }
  }

  private static func printable(_ name: String) -> String {
    name.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
  }
}
