// Members of 0.1 that 1.0 renamed, kept as deprecated forwarders for one minor version (they go
// in 1.1); CHANGELOG lists each.

extension LoopbackServer {
  /// Renamed ``maximumActiveRequests``.
  @available(*, deprecated, renamed: "maximumActiveRequests")
  public var maxActiveRequests: Int { maximumActiveRequests }
}
