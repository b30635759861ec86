extension Redaction {
  /// The environment's proxy credentials where a library reads those variables: libcurl,
  /// CurlTransport's and FoundationNetworking's, on Linux. None on Apple platforms, where
  /// URLSession takes the system's proxy settings and never reads `http_proxy`.
  static func libcurlProxyCredentials() -> [String] {
    #if canImport(FoundationNetworking)
      proxyCredentials()
    #else
      []
    #endif
  }
}
