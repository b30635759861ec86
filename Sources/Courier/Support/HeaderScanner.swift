import Foundation

/// Reads the pieces HTTP field values are made of (RFC 9110 §5.6): tokens, quoted strings,
/// whitespace and separators, one Unicode scalar at a time. `Link` values
/// (``HTTPLink/parse(_:relativeTo:)``) and `Cache-Control` directives (``CacheControl``) are
/// read with it.
struct HeaderScanner {
  let scalars: [Unicode.Scalar]
  var index = 0

  init(_ text: String) {
    scalars = Array(text.unicodeScalars)
  }

  var isAtEnd: Bool { index >= scalars.count }

  /// The scalar at the scanner, if any.
  var next: Unicode.Scalar? { isAtEnd ? nil : scalars[index] }

  /// Moves past the next `separator` that is outside `<…>` and quotes, or to the end.
  mutating func skipPast(_ separator: Unicode.Scalar) {
    var inBrackets = false
    var inQuotes = false
    while !isAtEnd {
      let scalar = scalars[index]
      index += 1
      if inQuotes {
        if scalar == "\\" {
          index += 1
        } else if scalar == "\"" {
          inQuotes = false
        }
      } else if scalar == "\"" {
        inQuotes = true
      } else if scalar == "<" {
        inBrackets = true
      } else if scalar == ">" {
        inBrackets = false
      } else if scalar == separator && !inBrackets {
        return
      }
    }
  }

  mutating func take(_ scalar: Unicode.Scalar) -> Bool {
    guard !isAtEnd, scalars[index] == scalar else { return false }
    index += 1
    return true
  }

  mutating func skipWhitespace() {
    while !isAtEnd && (scalars[index] == " " || scalars[index] == "\t") { index += 1 }
  }

  mutating func token() -> String {
    let start = index
    while !isAtEnd, scalars[index].isASCII,
      HeaderValidation.isTokenByte(UInt8(scalars[index].value))
    {
      index += 1
    }
    return String(String.UnicodeScalarView(scalars[start..<index]))
  }

  mutating func quotedString() -> String? {
    guard take("\"") else { return nil }
    var value = String.UnicodeScalarView()
    while !isAtEnd {
      let scalar = scalars[index]
      index += 1
      if scalar == "\"" { return String(value) }
      if scalar == "\\" {
        guard !isAtEnd else { return nil }
        value.append(scalars[index])
        index += 1
      } else {
        value.append(scalar)
      }
    }
    return nil
  }
}
