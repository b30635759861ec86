import Courier
import Foundation

/// Where the program's requests go, and what every request carries with it.
///
/// This is the user's side of Courier's design: the library has no environment type, and an
/// app maps its own environments to a base URL and default headers. The fixture's base URL
/// is an associated value because its port is only known once the server is listening.
enum Environment: Sendable {
  /// The embedded fixture API on the loopback interface (no credentials needed).
  case fixture(URL)
  /// A TMDB-compatible API, e.g. `https://api.themoviedb.org/3`, with a credential.
  case production(URL, key: APIKey)

  /// The base URL endpoint paths are joined to. A v3 key travels in the base URL's query
  /// (`…/3?api_key=…`): Courier keeps a base URL's query items on every request and redacts
  /// `api_key` values in error descriptions.
  var baseURL: URL {
    switch self {
    case .fixture(let url):
      return url
    case .production(let url, .readAccessToken):
      return url
    case .production(let url, .v3(let key)):
      guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
        return url
      }
      components.queryItems =
        (components.queryItems ?? []) + [URLQueryItem(name: "api_key", value: key)]
      return components.url ?? url
    }
  }

  /// The headers every request carries: who is asking and, for a read access token, the
  /// `Authorization` header (redacted whenever Courier prints headers).
  /// Where posters are: TMDB's image server (`w500` size), or the fixture's `/t/p/w500`.
  var imageBaseURL: URL {
    switch self {
    case .fixture(let url):
      return url.deletingLastPathComponent().appendingPathComponent("t/p/w500")
    case .production:
      return URL(string: "https://image.tmdb.org/t/p/w500")!
    }
  }

  var headers: HTTPHeaders {
    var headers: HTTPHeaders = ["User-Agent": "movies/1.0 (Courier example)"]
    if case .production(_, .readAccessToken(let token)) = self {
      headers["Authorization"] = "Bearer \(token)"
    }
    return headers
  }

  /// A short description for the program's first line, without any credential (or the
  /// fixture's port, which changes from run to run).
  var summary: String {
    switch self {
    case .fixture: "the embedded fixture API on 127.0.0.1"
    case .production(let url, _): url.absoluteString
    }
  }

  /// A client for this environment: its base URL and headers, TMDB's snake_case keys, and a
  /// 10-second deadline per request, sending through `transport` (`nil`: Courier's default),
  /// keeping responses in `cache` when given.
  func makeClient(transport: (any HTTPTransport)?, cache: HTTPCache? = nil) -> HTTPClient {
    let configuration = HTTPClient.Configuration(
      headers: headers,
      timeout: .seconds(10),
      decoder: TMDBCoding.decoder(),
      cache: cache)
    return HTTPClient(baseURL: baseURL, configuration: configuration, transport: transport)
  }
}
