import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// Where building a URLRequest differs by platform: how headers are set, and which network
// access options a request can carry.

extension URLRequest {
  #if canImport(FoundationNetworking)
    /// Linux: FoundationNetworking's `addValue` re-checks each value Character by Character
    /// (what HeaderValidation has refused already) and copies the header dictionary: ~10,000
    /// instructions a header (measured with `perf`). This builds the dictionary it would:
    /// names capitalized, repeated names joined with ",". (Names are ASCII tokens, so names
    /// that differ only in case capitalize alike, and looking the capitalized name up finds
    /// the field.)
    mutating func setHeaders(_ headers: HTTPHeaders) {
      var fields: [String: String] = [:]
      for field in headers {
        let name = field.name.capitalized
        if let old = fields[name] {
          fields[name] = old + "," + field.value
        } else {
          fields[name] = field.value
        }
      }
      if !fields.isEmpty {
        allHTTPHeaderFields = fields
      }
    }

    /// Linux: only `allowsCellularAccess` exists (and FoundationNetworking has no cellular
    /// interface to avoid); expensive and constrained networks are Apple's notions.
    mutating func apply(_ options: RequestOptions) {
      if options.contains(.noCellular) { allowsCellularAccess = false }
    }
  #else
    /// Apple platforms: `addValue` joins repeated names as HTTP says.
    mutating func setHeaders(_ headers: HTTPHeaders) {
      for field in headers {
        addValue(field.value, forHTTPHeaderField: field.name)
      }
    }

    /// Apple platforms: the request's network access flags (Apple's documentation of
    /// `URLRequest.allowsExpensiveNetworkAccess` and `allowsConstrainedNetworkAccess`);
    /// URLSession fails such a request with `URLError.notConnectedToInternet` and a
    /// `networkUnavailableReason` when only a refused network is available.
    mutating func apply(_ options: RequestOptions) {
      if options.contains(.noCellular) { allowsCellularAccess = false }
      if options.contains(.noExpensiveNetwork) { allowsExpensiveNetworkAccess = false }
      if options.contains(.noConstrainedNetwork) { allowsConstrainedNetworkAccess = false }
    }
  #endif
}
