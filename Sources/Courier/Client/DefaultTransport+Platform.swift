import Foundation

/// The transport a client makes when it is given none.
///
/// Apple platforms: always ``URLSessionTransport`` (there is no ``CurlTransport``).
///
/// Linux: ``CurlTransport`` whenever the system's libcurl loads — one for the whole process,
/// shared by every client given no transport, so that they share its one thread and its
/// connections — otherwise ``URLSessionTransport``. The environment variable `COURIER_TRANSPORT` chooses one
/// explicitly, so that a whole test suite (yours or Courier's) runs on either transport without
/// a change: `COURIER_TRANSPORT=urlsession swift test`. `curl` is honoured even where libcurl
/// does not load: the client then fails every request with the reason, rather than quietly
/// testing the other transport. Any other value is ignored.
enum DefaultTransport {
  #if canImport(FoundationNetworking)
    /// The environment variable that chooses the default transport on Linux.
    static let environmentVariable = "COURIER_TRANSPORT"

    /// The transports a client given none can get.
    enum Kind: String, Equatable, Sendable, CaseIterable {
      /// ``URLSessionTransport``: `COURIER_TRANSPORT=urlsession`.
      case urlSession = "urlsession"
      /// ``CurlTransport``: `COURIER_TRANSPORT=curl`.
      case curl
    }

    /// Which transport a client given none gets on Linux: the one `environment`'s
    /// `COURIER_TRANSPORT` names (`curl` or `urlsession`; letter case and surrounding spaces do
    /// not matter), otherwise ``CurlTransport`` if the system's libcurl loads and
    /// ``URLSessionTransport`` if it does not. `curlLoads` is asked only when the environment
    /// names neither: loading libcurl runs `curl_global_init`, which a process that chose
    /// URLSession should not get.
    static func kind(environment: [String: String], curlLoads: @autoclosure () -> Bool) -> Kind {
      let chosen = environment[environmentVariable]?
        .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
      if let kind = chosen.flatMap(Kind.init(rawValue:)) { return kind }
      return curlLoads() ? .curl : .urlSession
    }

    /// The transport for this process's environment.
    static func make() -> any HTTPTransport {
      let environment = ProcessInfo.processInfo.environment
      switch kind(environment: environment, curlLoads: CurlTransport.isAvailable) {
      case .curl: return sharedCurl
      case .urlSession: return URLSessionTransport()
      }
    }

    /// The process's one ``CurlTransport`` for clients given none: made at first use, never
    /// shut down.
    static let sharedCurl = CurlTransport()
  #else
    /// Apple platforms: ``URLSessionTransport``, whatever the environment says.
    static func make() -> any HTTPTransport {
      URLSessionTransport()
    }
  #endif
}
