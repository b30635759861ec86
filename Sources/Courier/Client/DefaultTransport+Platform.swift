import Foundation

/// The transport a client makes when it is given none.
enum DefaultTransport {
  #if canImport(FoundationNetworking)
    /// Linux: ``URLSessionTransport``, or ``CurlTransport`` when the environment variable
    /// `COURIER_TRANSPORT` is `curl`, so that a whole test suite (yours or Courier's) runs
    /// over libcurl without a change: `COURIER_TRANSPORT=curl swift test`.
    static func make() -> any HTTPTransport {
      if ProcessInfo.processInfo.environment["COURIER_TRANSPORT"] == "curl" {
        return CurlTransport()
      }
      return URLSessionTransport()
    }
  #else
    /// Apple platforms: ``URLSessionTransport`` (there is no ``CurlTransport``).
    static func make() -> any HTTPTransport {
      URLSessionTransport()
    }
  #endif
}
