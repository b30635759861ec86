import Foundation

/// One `Set-Cookie` field read by RFC 6265bis §5.6's parsing steps: the name and value, and
/// the attributes that matter, the last of each name winning. Anything it cannot read is
/// `nil`, and the field is ignored.
struct SetCookie: Equatable {
  var name: String
  var value: String
  var expires: Date?
  /// Seconds, when `Max-Age` is valid (it takes precedence over `Expires`).
  var maxAge: Int64?
  /// The `Domain` attribute, lowercased, a leading dot removed; `nil` when absent or empty.
  var domain: String?
  /// The `Path` attribute when it starts with `/`.
  var path: String?
  var secure = false
  var httpOnly = false
  var sameSite: String?

  /// The largest name plus value, and attribute value, a cookie may have (§5.6 steps 5, 6).
  static let maximumNameValueBytes = 4096
  static let maximumAttributeBytes = 1024

  init?(_ field: String) {
    // A control character other than tab makes the whole field invalid.
    guard !field.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0 == "\u{7F}" })
    else { return nil }
    let pair: Substring
    let attributes: Substring
    if let semicolon = field.firstIndex(of: ";") {
      pair = field[..<semicolon]
      attributes = field[field.index(after: semicolon)...]
    } else {
      pair = field[...]
      attributes = ""
    }
    // RFC 6265 §5.2: a pair without "=", or with an empty name, is ignored (the suite of
    // abarth/http-state expects it; 6265bis would keep it as a nameless cookie).
    guard let equals = pair.firstIndex(of: "=") else { return nil }
    name = Self.trimmed(pair[..<equals])
    value = Self.trimmed(pair[pair.index(after: equals)...])
    guard !name.isEmpty, name.utf8.count + value.utf8.count <= Self.maximumNameValueBytes
    else { return nil }
    for attribute in attributes.split(separator: ";", omittingEmptySubsequences: false) {
      apply(attribute)
    }
  }

  private mutating func apply(_ attribute: Substring) {
    let key: String
    let text: String
    if let equals = attribute.firstIndex(of: "=") {
      key = Self.trimmed(attribute[..<equals]).lowercased()
      text = Self.trimmed(attribute[attribute.index(after: equals)...])
    } else {
      key = Self.trimmed(attribute).lowercased()
      text = ""
    }
    guard text.utf8.count <= Self.maximumAttributeBytes else { return }
    switch key {
    case "expires":
      if let date = CookieDate.parse(text) { expires = date }
    case "max-age":
      guard let first = text.first, first == "-" || first.isASCII && first.isNumber,
        text.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber })
      else { return }
      maxAge = Int64(text) ?? (first == "-" ? Int64.min : Int64.max)
    case "domain":
      guard !text.isEmpty else { return }
      domain = (text.hasPrefix(".") ? String(text.dropFirst()) : text).lowercased()
    case "path":
      path = text.hasPrefix("/") ? text : nil
    case "secure":
      secure = true
    case "httponly":
      httpOnly = true
    case "samesite":
      sameSite = text
    default:
      break
    }
  }

  /// `Set-Cookie` fields that URLSession joined into one value with ", ", parted again: at
  /// each comma followed by what starts a cookie (`name=` before any `;`). A comma inside
  /// an `Expires` date is followed by a day, not by `name=`, and stays; a comma inside a
  /// cookie's value followed by `name=` (which RFC 6265 does not allow) is taken for a new
  /// field, as other clients reading URLSession's headers take it.
  static func parted(_ joined: String) -> [String] {
    guard joined.contains(",") else { return [joined] }
    var fields: [String] = []
    var start = joined.startIndex
    var index = joined.startIndex
    while let comma = joined[index...].firstIndex(of: ",") {
      let rest = joined[joined.index(after: comma)...].drop { $0 == " " || $0 == "\t" }
      let head = rest.prefix { $0 != ";" && $0 != "," }
      if let equals = head.firstIndex(of: "="), equals != head.startIndex,
        !head[..<equals].contains(where: { $0 == " " || $0 == "\t" })
      {
        fields.append(String(joined[start..<comma]))
        start = rest.startIndex
      }
      index = joined.index(after: comma)
    }
    fields.append(String(joined[start...]))
    return fields
  }

  /// `text` without leading and trailing spaces and tabs.
  private static func trimmed(_ text: Substring) -> String {
    let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let start = text.firstIndex(where: { !isBlank($0) }),
      let end = text.lastIndex(where: { !isBlank($0) })
    else { return "" }
    return String(text[start...end])
  }
}
