import Foundation

extension URL {
  /// The base URL of an HTTP server on the Unix domain socket at `socketPath`:
  /// `http+unix://` with the path percent-encoded as its host (`https+unix://` with `secure`),
  /// the form AsyncHTTPClient uses. Give it to ``HTTPClient`` as its base URL; endpoint paths
  /// go after it. `CurlTransport` connects to the socket; other transports refuse such URLs
  /// with ``HTTPError/invalidRequest(reason:)``.
  ///
  /// ```swift
  /// let docker = HTTPClient(baseURL: URL(unixSocketPath: "/var/run/docker.sock")!)
  /// let info = try await docker.send(Request<Data>(path: "v1.43/info"))
  /// ```
  ///
  /// `nil` when `socketPath` is not an absolute path. A path longer than a socket's address
  /// holds (107 bytes on Linux) fails every request with
  /// ``HTTPError/invalidRequest(reason:)``, as does an `http+unix` base URL written by hand
  /// whose host is not the percent-encoded absolute path (`http+unix:///var/run/docker.sock`).
  public init?(unixSocketPath socketPath: String, secure: Bool = false) {
    guard socketPath.hasPrefix("/"),
      let encoded = socketPath.addingPercentEncoding(
        withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
    else { return nil }
    self.init(string: "\(secure ? "https" : "http")+unix://\(encoded)")
  }
}
