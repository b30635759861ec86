/// The body TMDB sends with an error status.
///
/// ```json
/// {"status_code": 34, "status_message": "The resource you requested could not be found.", "success": false}
/// ```
///
/// `status_code` is TMDB's own code (34: not found, 7: invalid API key, 22: invalid page),
/// not the HTTP status.
struct TMDBError: Codable, Sendable, Equatable {
  /// TMDB's own error code.
  var statusCode: Int
  /// What went wrong, in English.
  var statusMessage: String
  /// Always `false` in an error.
  var success: Bool
}

extension TMDBError {
  /// Code 34: the movie or path does not exist.
  static let notFound = TMDBError(
    statusCode: 34, statusMessage: "The resource you requested could not be found.", success: false)

  /// Code 22: a page outside 1…500.
  static let invalidPage = TMDBError(
    statusCode: 22,
    statusMessage:
      "Invalid page: Pages start at 1 and max at 500. They are expected to be an integer.",
    success: false)
}
