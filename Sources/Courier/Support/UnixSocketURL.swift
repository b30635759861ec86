import Foundation

/// A URL that reaches an HTTP server on a Unix domain socket: `http+unix://` (or
/// `https+unix://`) with the socket's path, percent-encoded, as its host — the form
/// AsyncHTTPClient and requests-unixsocket use. `http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/info`
/// asks the server on `/var/run/docker.sock` for `/v1.43/info`.
struct UnixSocketURL: Equatable {
  /// The socket's path in the file system.
  let socketPath: String
  /// The same request as an `http` or `https` URL on `localhost`, for the HTTP layer.
  let httpURL: URL

  /// The schemes that name a Unix domain socket.
  static let schemes: Set<String> = ["http+unix", "https+unix"]

  /// Whether `scheme` (lowercased) names a Unix domain socket.
  static func isUnix(_ scheme: String?) -> Bool {
    scheme.map { schemes.contains($0.lowercased()) } ?? false
  }

  /// `url` split into its socket and its HTTP request; `nil` for any other URL, and for one
  /// whose host is not an absolute path.
  init?(_ url: URL) {
    guard let scheme = url.scheme?.lowercased(), Self.schemes.contains(scheme),
      let path = url.host(percentEncoded: false), path.hasPrefix("/"),
      var parts = URLComponents(url: url, resolvingAgainstBaseURL: true)
    else { return nil }
    parts.scheme = String(scheme.dropLast("+unix".count))
    parts.host = "localhost"
    parts.port = nil
    guard let http = parts.url else { return nil }
    socketPath = path
    httpURL = http
  }
}
