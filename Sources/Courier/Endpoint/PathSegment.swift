extension DefaultStringInterpolation {
  /// Appends `value` as exactly one path segment, percent-encoding everything but RFC 3986's
  /// unreserved characters, so that user input cannot change the shape of a path: `/`, `?`,
  /// `#` and `%` are encoded, and a value of `.` or `..` becomes `%2E` or `%2E%2E`.
  ///
  /// ```swift
  /// var path: String { "search/\(segment: title)/credits" }   // "What? 50%/off" stays one segment
  /// ```
  public mutating func appendInterpolation(segment value: some CustomStringConvertible) {
    let text = value.description
    switch text {
    case ".": appendLiteral("%2E")
    case "..": appendLiteral("%2E%2E")
    default: appendLiteral(PercentEncoding.encodeComponent(text))
    }
  }
}
