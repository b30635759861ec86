import Courier

extension Options.TransportChoice {
  #if canImport(FoundationNetworking)
    /// Linux: both transports exist.
    func make() throws(Options.UsageError) -> any HTTPTransport {
      switch self {
      case .urlSession: URLSessionTransport()
      case .curl: CurlTransport()
      }
    }
  #else
    /// Apple platforms: CurlTransport is Linux's (URLSession is the platform's own HTTP).
    func make() throws(Options.UsageError) -> any HTTPTransport {
      switch self {
      case .urlSession: return URLSessionTransport()
      case .curl:
        throw Options.UsageError(description: "--transport curl needs Linux (CurlTransport)")
      }
    }
  #endif
}
