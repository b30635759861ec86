import Foundation

/// The cookie-date algorithm of RFC 6265bis §5.1.1: the lenient reading of `Expires` that
/// browsers share, token by token (a time, a day of the month, a month name, a year), which
/// takes the forms real servers send (`Wed, 09-Jun-2021 10:18:14 GMT`, two-digit years,
/// asctime) and refuses what has no valid date in it.
enum CookieDate {
  static func parse(_ text: String) -> Date? {
    var time: (Int, Int, Int)?
    var day: Int?
    var month: Int?
    var year: Int?
    for token in tokens(text) {
      if time == nil, let found = parseTime(token) {
        time = found
      } else if day == nil, let found = digits(token, 1...2) {
        day = found
      } else if month == nil, let found = parseMonth(token) {
        month = found
      } else if year == nil, let found = digits(token, 2...4) {
        year = found
      }
    }
    guard let (hour, minute, second) = time, let day, let month, var year else { return nil }
    if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
    guard (1...31).contains(day), year >= 1601, hour <= 23, minute <= 59, second <= 59 else {
      return nil
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let components = DateComponents(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    guard let date = calendar.date(from: components),
      calendar.component(.day, from: date) == day
    else { return nil }  // 31 June and the like
    return date
  }

  /// The date-tokens: runs of bytes that are not delimiters.
  private static func tokens(_ text: String) -> [Substring.UTF8View] {
    text.utf8.split(whereSeparator: isDelimiter).map { Substring($0).utf8 }
  }

  private static func isDelimiter(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x09, 0x20...0x2F, 0x3B...0x40, 0x5B...0x60, 0x7B...0x7E: true
    default: false
    }
  }

  private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

  /// `count` digits (within `range`) at the start of `token`, then anything not a digit.
  private static func digits(_ token: Substring.UTF8View, _ range: ClosedRange<Int>) -> Int? {
    let leading = token.prefix(while: isDigit)
    guard range.contains(leading.count) else { return nil }
    return leading.reduce(0) { $0 * 10 + Int($1 - 0x30) }
  }

  /// `h:m:s`, each one or two digits, then anything not a digit.
  private static func parseTime(_ token: Substring.UTF8View) -> (Int, Int, Int)? {
    var values: [Int] = []
    var rest = Substring(token).utf8[...]
    for index in 0..<3 {
      let run = rest.prefix(while: isDigit)
      guard (1...2).contains(run.count) else { return nil }
      values.append(run.reduce(0) { $0 * 10 + Int($1 - 0x30) })
      rest = rest.dropFirst(run.count)
      if index < 2 {
        guard rest.first == UInt8(ascii: ":") else { return nil }
        rest = rest.dropFirst()
      } else if let next = rest.first, isDigit(next) {
        return nil
      }
    }
    return (values[0], values[1], values[2])
  }

  private static let months = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
  ]

  private static func parseMonth(_ token: Substring.UTF8View) -> Int? {
    guard token.count >= 3 else { return nil }
    let prefix = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
    return months.firstIndex(of: prefix).map { $0 + 1 }
  }
}
