import Foundation

/// A TMDB credential, in one of the two forms TMDB accepts.
enum APIKey: Sendable, Equatable {
  /// A v3 API key (32 hex digits), sent as the `api_key` query item.
  case v3(String)
  /// A v4 read access token (a JWT), sent as `Authorization: Bearer …`.
  case readAccessToken(String)

  /// The credential in `text`: a read access token if it looks like a JWT (three parts
  /// separated by dots), otherwise a v3 key. Surrounding whitespace is ignored.
  init(_ text: String) {
    let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
    let dots = key.count { $0 == "." }
    self = dots == 2 ? .readAccessToken(key) : .v3(key)
  }

  /// The environment variable the key is read from.
  static let environmentVariable = "TMDB_API_KEY"
}
