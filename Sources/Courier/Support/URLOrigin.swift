import Foundation

/// A URL's origin (RFC 6454): scheme, host and port, with default ports made explicit, so
/// that `https://api.example.com` and `https://API.example.com:443/x` are the same origin.
struct URLOrigin: Equatable, CustomStringConvertible {
  let scheme: String
  let host: String
  let port: Int

  init?(_ url: URL?) {
    guard let url, let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else {
      return nil
    }
    self.scheme = scheme
    self.host = host
    port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
  }

  /// The origin as one key, `scheme://host:port`, lowercased and with the default port
  /// made explicit: the client's per-host limit keeps one queue per key.
  var description: String { "\(scheme)://\(host):\(port)" }

  /// Whether both URLs have an origin and it is the same.
  static func same(_ lhs: URL?, _ rhs: URL?) -> Bool {
    guard let left = URLOrigin(lhs), let right = URLOrigin(rhs) else { return false }
    return left == right
  }
}
