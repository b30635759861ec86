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
    guard let date = HTTPDate.parse(trimmed) else { return nil }
    let interval = max(0, date.timeIntervalSince(now))
    return .milliseconds(Int64(interval * 1000))
  }

}
