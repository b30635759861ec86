import Foundation

/// The transport a client gets when it is given none: one for the whole process, whichever
/// it is, shared by every client given no transport, so that they share its connections (a
/// client made for each request still reuses them; a session or an engine made for each
/// would connect, and on Apple platforms shake hands over TLS, each time) and, for
/// ``CurlTransport``, its one thread. It is made at first use and, like `URLSession.shared`,
/// never shut down.
///
/// Apple platforms: always ``URLSessionTransport`` (there is no ``CurlTransport``).
///
/// Linux: ``CurlTransport`` whenever the system's libcurl loads, otherwise
/// ``URLSessionTransport``. The environment variable `COURIER_TRANSPORT` chooses one
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
      case .urlSession: return sharedURLSession
      }
    }

    /// The process's one ``CurlTransport`` for clients given none.
    static let sharedCurl = CurlTransport()
  #else
    /// Apple platforms: ``URLSessionTransport``, whatever the environment says.
    static func make() -> any HTTPTransport {
      sharedURLSession
    }
  #endif

  /// The process's one ``URLSessionTransport`` for clients given none.
  static let sharedURLSession = URLSessionTransport()
}
