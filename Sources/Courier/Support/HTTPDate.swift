import Foundation

/// HTTP dates (RFC 9110 §5.6.7): read in any of the three forms a recipient must accept,
/// written in the preferred one (`Sun, 06 Nov 1994 08:49:37 GMT`). `package`: the loopback
/// server of CourierTesting reads and writes them too.
package enum HTTPDate {
  /// The date `text` names, or `nil` when it is in none of the three forms.
  package static func parse(_ text: String) -> Date? {
    if let date = imfFixdate(text) { return date }
    let formatter = formatter()
    for format in [
      "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
    ] {
      formatter.dateFormat = format
      if let date = formatter.date(from: text.trimmingCharacters(in: .whitespaces)) {
        return date
      }
    }
    return nil
  }

  /// The preferred form (`Sun, 06 Nov 1994 08:49:37 GMT`), read by hand: it is what servers
  /// send, and a `DateFormatter` costs tens of microseconds to make on Linux.
  static func imfFixdate(_ text: String) -> Date? {
    let bytes = Array(text.utf8)
    guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 32, bytes[7] == 32,
      bytes[11] == 32, bytes[16] == 32, bytes[19] == UInt8(ascii: ":"),
      bytes[22] == UInt8(ascii: ":"), bytes[25] == 32, bytes[26...] == Array("GMT".utf8)[...]
    else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for byte in bytes[range] {
        guard (48...57).contains(byte) else { return nil }
        value = value * 10 + Int(byte - 48)
      }
      return value
    }
    let months = [
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    guard let day = number(5..<7), let year = number(12..<16), let hour = number(17..<19),
      let minute = number(20..<22), let second = number(23..<25),
      let monthIndex = months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self)),
      year >= 1, hour < 24, minute < 60, second < 61
    else { return nil }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    guard (1...lengths[monthIndex]).contains(day) else { return nil }
    // Days from 1970-01-01 to the civil date (Howard Hinnant's algorithm).
    let month = monthIndex + 1
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = shiftedYear / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
    return Date(timeIntervalSince1970: TimeInterval(seconds))
  }

  /// `date` in the preferred form.
  package static func format(_ date: Date) -> String {
    let formatter = formatter()
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
  }

  private static func formatter() -> DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    return formatter
  }
}
