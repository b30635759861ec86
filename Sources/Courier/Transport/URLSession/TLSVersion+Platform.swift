import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#else
  import Security
#endif

extension TLSVersion {
  #if canImport(FoundationNetworking)
    /// Linux: FoundationNetworking's configuration has no minimum TLS version, so a
    /// URLSessionTransport given one refuses every request (URLSessionTransport+ConnectionSettings.swift).
    func apply(to configuration: URLSessionConfiguration) {}
  #else
    /// Apple platforms: the configuration's `tlsMinimumSupportedProtocolVersion`, a
    /// `tls_protocol_version_t` (macOS 10.15, iOS 13, as its sibling
    /// `tlsMaximumSupportedProtocolVersion`), which replaced the deprecated `SSLProtocol` one.
    func apply(to configuration: URLSessionConfiguration) {
      configuration.tlsMinimumSupportedProtocolVersion = self == .tls13 ? .TLSv13 : .TLSv12
    }
  #endif
}
