extension DefaultStringInterpolation {
  /// Appends `value` as exactly one path segment, percent-encoding everything but RFC 3986's
  /// unreserved characters, so that user input cannot change the shape of a path: `/`, `?`,
  /// `#` and `%` are encoded.
  ///
  /// ```swift
  /// var path: String { "search/\(segment: title)/credits" }   // "What? 50%/off" stays one segment
  /// ```
  ///
  /// An empty value cannot be one segment (`users//posts` or `users/` names another
  /// resource), and no encoding keeps `.` or `..` from being read as a dot segment (`%2E` is a
  /// `.` to servers, RFC 3986 §6.2.2): for these values the request fails with
  /// ``HTTPError/invalidRequest(reason:)`` and nothing is sent.
  public mutating func appendInterpolation(segment value: some CustomStringConvertible) {
    let text = value.description
    switch text {
    case "": appendLiteral(String(UnicodeScalar(PathSegment.emptyMarker)))
    default: appendLiteral(PercentEncoding.encodeComponent(text))
    }
  }
}

/// What `\(segment:)` leaves in a path for an empty value, for the path's check
/// (``URLBuilder``) to refuse when the request is built: an interpolation cannot throw.
enum PathSegment {
  /// ASCII SUB, a control character: the check refuses every control character in a path,
  /// and names this one's cause.
  static let emptyMarker: UInt8 = 0x1A
}
