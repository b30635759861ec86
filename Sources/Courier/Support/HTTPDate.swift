import Foundation

/// HTTP dates (RFC 9110 §5.6.7), read to the grammar and written in the preferred form
/// (`Sun, 06 Nov 1994 08:49:37 GMT`). `package`: the loopback server of CourierTesting reads
/// and writes them too.
///
/// Three forms are read: IMF-fixdate, the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37
/// GMT`, whose two-digit year is the most recent year with those digits not more than 50
/// years ahead) and asctime (`Sun Nov  6 08:49:37 1994`). Anything else is no date: another
/// zone name, a missing comma, extra spaces, dashes or a two-digit year in the preferred form,
/// periods in the time, a one-digit hour. (An invalid `Expires` then means "already expired",
/// RFC 9111 §5.3.) Day and month names and `GMT` are read in any case, as browsers do.
package enum HTTPDate {
  /// The date `text` names, or `nil` when it is in none of the three forms.
  package static func parse(_ text: String) -> Date? {
    parse(text, now: Date())
  }

  /// The date `text` names, or `nil` when it is in none of the three forms; `now` places an
  /// RFC 850 date's two-digit year.
  package static func parse(_ text: String, now: Date) -> Date? {
    var bytes = Array(text.utf8)[...]
    while bytes.first == 32 || bytes.first == 9 { bytes.removeFirst() }
    while bytes.last == 32 || bytes.last == 9 { bytes.removeLast() }
    let reader = Reader(bytes: Array(bytes))
    return reader.imfFixdate() ?? reader.rfc850(now: now) ?? reader.asctime()
  }

  /// `date` in the preferred form.
  package static func format(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
  }

  static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
  static let longWeekdays = [
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
  ]
  static let months = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
  ]

  /// One value's bytes, read form by form, position by position.
  private struct Reader {
    let bytes: [UInt8]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    func imfFixdate() -> Date? {
      guard bytes.count == 29, name(0..<3, in: HTTPDate.weekdays) != nil,
        byte(3, ","), byte(4, " "), byte(7, " "), byte(11, " "), byte(16, " "), byte(25, " "),
        word(26..<29, "gmt"), let day = digits(5..<7),
        let month = name(8..<11, in: HTTPDate.months), let year = digits(12..<16)
      else { return nil }
      return date(year: year, month: month, day: day, timeAt: 17)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    func rfc850(now: Date) -> Date? {
      guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")),
        name(0..<comma, in: HTTPDate.longWeekdays) != nil, bytes.count == comma + 24
      else { return nil }
      let at = comma + 2  // the day
      guard byte(comma + 1, " "), byte(at + 2, "-"), byte(at + 6, "-"), byte(at + 9, " "),
        byte(at + 18, " "), word(at + 19..<at + 22, "gmt"), let day = digits(at..<at + 2),
        let month = name(at + 3..<at + 6, in: HTTPDate.months),
        let twoDigits = digits(at + 7..<at + 9)
      else { return nil }
      // RFC 9110 §5.6.7: a year more than 50 years ahead is the one a century before.
      let thisYear =
        Calendar(identifier: .gregorian).dateComponents(
          in: TimeZone(identifier: "GMT")!, from: now
        ).year ?? 1970
      var year = thisYear - thisYear % 100 + twoDigits
      if year > thisYear + 50 { year -= 100 }
      return date(year: year, month: month, day: day, timeAt: at + 10)
    }

    /// `Sun Nov  6 08:49:37 1994` (a one-digit day has a space before it)
    func asctime() -> Date? {
      guard bytes.count == 24, name(0..<3, in: HTTPDate.weekdays) != nil, byte(3, " "),
        byte(7, " "), byte(10, " "), byte(19, " "),
        let month = name(4..<7, in: HTTPDate.months), let year = digits(20..<24)
      else { return nil }
      let day = byte(8, " ") ? digits(9..<10) : digits(8..<10)
      guard let day else { return nil }
      return date(year: year, month: month, day: day, timeAt: 11)
    }

    /// The date with the time of day `HH:MM:SS` that starts at byte `at`; `nil` when a part
    /// is out of range (a day past its month's end, hour 24, second 61).
    private func date(year: Int, month: Int, day: Int, timeAt at: Int) -> Date? {
      guard byte(at + 2, ":"), byte(at + 5, ":"), let hour = digits(at..<at + 2),
        let minute = digits(at + 3..<at + 5), let second = digits(at + 6..<at + 8),
        year >= 1, hour < 24, minute < 60, second <= 60
      else { return nil }
      let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
      let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
      guard (1...lengths[month - 1]).contains(day) else { return nil }
      // Days from 1970-01-01 to the civil date (Howard Hinnant's algorithm).
      let shiftedYear = month <= 2 ? year - 1 : year
      let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
      let yearOfEra = shiftedYear - era * 400
      let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
      let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
      let days = era * 146_097 + dayOfEra - 719_468
      let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
      return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private func byte(_ index: Int, _ character: Unicode.Scalar) -> Bool {
      index < bytes.count && bytes[index] == UInt8(ascii: character)
    }

    /// The number the bytes in `range` spell, all of them digits.
    private func digits(_ range: Range<Int>) -> Int? {
      guard range.upperBound <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[range] {
        guard (48...57).contains(byte) else { return nil }
        value = value * 10 + Int(byte - 48)
      }
      return value
    }

    /// Whether the bytes in `range` spell `lowercase` in any case.
    private func word(_ range: Range<Int>, _ lowercase: String) -> Bool {
      guard range.upperBound <= bytes.count, range.count == lowercase.utf8.count else {
        return false
      }
      return zip(bytes[range], lowercase.utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// The 1-based position in `names` of the word in `range`, in any case.
    private func name(_ range: Range<Int>, in names: [String]) -> Int? {
      names.firstIndex { word(range, $0) }.map { $0 + 1 }
    }
  }
}
