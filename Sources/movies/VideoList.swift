/// The videos of a movie (`movie/{id}/videos`): trailers, teasers, clips.
struct VideoList: Codable, Sendable, Equatable {
  /// The movie's id.
  var id: Int
  /// The videos, in TMDB's order.
  var results: [Video]
}

/// One video of a movie, hosted on YouTube or Vimeo.
struct Video: Codable, Sendable, Equatable {
  /// TMDB's id for the video (a hex string).
  var id: String
  /// The video's title.
  var name: String
  /// The id on the hosting site (`site`).
  var key: String
  /// `YouTube` or `Vimeo`.
  var site: String
  /// `Trailer`, `Teaser`, `Clip`, `Featurette` …
  var type: String
  /// Whether the studio published it.
  var official: Bool
  /// When it was published, ISO 8601.
  var publishedAt: String

  /// Where to watch it, for the sites TMDB uses.
  var watchURL: String? {
    switch site {
    case "YouTube": "https://www.youtube.com/watch?v=\(key)"
    case "Vimeo": "https://vimeo.com/\(key)"
    default: nil
    }
  }
}
