// Members of 0.1 that 1.0 renamed, kept as deprecated forwarders for one minor version (they go
// in 1.1); CHANGELOG lists each. Limits are spelled `maximum…`; libcurl is `Curl`/`curl` in names.

import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPClient {
  /// Renamed ``send(all:maximumConcurrent:)``.
  @available(*, deprecated, renamed: "send(all:maximumConcurrent:)")
  public nonisolated func send<E: Endpoint>(all endpoints: some Collection<E>, maxConcurrent: Int)
    async throws(HTTPError) -> [E.Response]
  {
    try await send(all: endpoints, maximumConcurrent: maxConcurrent)
  }

  /// Renamed ``results(for:maximumConcurrent:)``.
  @available(*, deprecated, renamed: "results(for:maximumConcurrent:)")
  public nonisolated func results<E: Endpoint>(
    for endpoints: some Collection<E>, maxConcurrent: Int
  ) async -> [Result<E.Response, HTTPError>] {
    await results(for: endpoints, maximumConcurrent: maxConcurrent)
  }

  /// Renamed ``curlCommand(for:redacting:)``.
  @available(*, deprecated, renamed: "curlCommand(for:redacting:)")
  public nonisolated func cURL<E: Endpoint>(for endpoint: E, redacting names: Set<String> = [])
    throws(HTTPError) -> String
  {
    try curlCommand(for: endpoint, redacting: names)
  }
}

extension OutgoingRequest {
  /// Renamed ``curlCommand(redacting:)``.
  @available(*, deprecated, renamed: "curlCommand(redacting:)")
  public func cURLDescription(redacting names: Set<String> = []) -> String {
    curlCommand(redacting: names)
  }
}

extension ReconnectionPolicy {
  /// Renamed ``maximumConsecutiveFailures``.
  @available(*, deprecated, renamed: "maximumConsecutiveFailures")
  public var maximumAttempts: Int? {
    get { maximumConsecutiveFailures }
    set { maximumConsecutiveFailures = newValue }
  }

  /// Renamed ``init(reconnects:delay:maximumConsecutiveFailures:)``.
  @available(*, deprecated, renamed: "init(reconnects:delay:maximumConsecutiveFailures:)")
  public init(reconnects: Bool = true, delay: Duration = .seconds(3), maximumAttempts: Int?) {
    self.init(reconnects: reconnects, delay: delay, maximumConsecutiveFailures: maximumAttempts)
  }
}

extension LinkPagedRequest {
  /// Renamed ``nextPage(after:response:)``; 0.1 code that calls this spelling (an endpoint that
  /// wraps a link-paged request, say) still gets the next page.
  @available(*, deprecated, renamed: "nextPage(after:response:)")
  public func nextPage(after page: Response, metadata: HTTPResponse) -> Self? {
    nextPage(after: page, response: metadata)
  }
}
