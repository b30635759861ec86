import Foundation

/// Reads a `Retry-After` value: delay-seconds (`120`) or an HTTP date
/// (`Wed, 21 Oct 2015 07:28:00 GMT`, or the obsolete RFC 850 and asctime forms).
enum RetryAfter {
  /// The wait the value asks for, from `now`; zero for a date in the past; `nil` when the
  /// value is neither form.
  static func delay(_ value: String, now: Date) -> Duration? {
    let trimmed = value.trimmingCharacters(in: .whitespaces)
    if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber) {
      guard let seconds = Int64(trimmed) else { return .seconds(Int64.max / 2) }
      return .seconds(seconds)
    }
    guard let date = httpDate(trimmed) else { return nil }
    let interval = max(0, date.timeIntervalSince(now))
    return .milliseconds(Int64(interval * 1000))
  }

  /// An HTTP date in any of the three forms RFC 9110 accepts.
  static func httpDate(_ text: String) -> Date? {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    for format in [
      "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
    ] {
      formatter.dateFormat = format
      if let date = formatter.date(from: text) { return date }
    }
    return nil
  }
}
