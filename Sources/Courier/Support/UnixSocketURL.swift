import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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

  /// The longest path a socket's address holds, in bytes: `sun_path` less its final NUL (107
  /// on Linux, 103 on Apple platforms).
  static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

  /// Why `url`, an `http+unix` or `https+unix` base URL, reaches no socket, if it does not: a
  /// host that is not an absolute path (`http+unix://var/run/docker.sock`, the path left
  /// unencoded, or `http+unix:///var/run/docker.sock`, none at all), or a path longer than a
  /// socket's address holds. The transport would otherwise fail it as a bad answer or a host
  /// not found.
  static func refusal(of url: URL) -> HTTPError? {
    guard let path = url.host(percentEncoded: false), path.hasPrefix("/") else {
      return .invalidRequest(
        reason: "the base URL '\(Redaction.url(url))' names no Unix domain socket: its host "
          + "must be the socket's absolute path, percent-encoded "
          + "(http+unix://%2Fvar%2Frun%2Fdocker.sock); make it with URL(unixSocketPath:)")
    }
    guard path.utf8.count <= maximumPathLength else {
      return .invalidRequest(
        reason: "the Unix domain socket's path is \(path.utf8.count) bytes long, more than the "
          + "\(maximumPathLength) a socket's address holds: use a shorter path (a link to the "
          + "socket serves)")
    }
    return nil
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
