import Foundation

/// HTTP dates (RFC 9110 §5.6.7): read in any of the three forms a recipient must accept,
/// written in the preferred one (`Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
  /// The date `text` names, or `nil` when it is in none of the three forms.
  static func parse(_ text: String) -> Date? {
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

  /// `date` in the preferred form.
  static func format(_ date: Date) -> String {
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
