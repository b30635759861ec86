import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPClient {
  /// The request `endpoint` becomes once the client's middleware has shaped it (a token
  /// added, a header set), for a transfer the system sends on its own (a background
  /// session's): the middleware's chain ends here instead of at the transport, and what
  /// comes back up the chain is a placeholder `202 Accepted` — the request was handed over,
  /// nothing has been answered. The observer hears of it as of any request.
  nonisolated func shapedRequest<E: Endpoint>(for endpoint: E) async throws(HTTPError)
    -> URLRequest
  {
    let shaped = Locked<URLRequest?>(nil)
    let exchange = Exchange(
      use: .collect, timeout: nil, idleTimeout: nil, maximumBytes: nil, acceptable: [202])
    let terminal: Terminal = { outgoing throws(HTTPError) in
      var request = outgoing.request.head
      try self.finishHead(&request, body: outgoing.request.body, outgoing)
      self.configuration.cookies?.addCookies(to: &request)
      shaped.withLock { $0 = request }
      var accepted = HTTPResponse(status: 202, url: request.url)
      accepted.requestURL = request.url
      accepted.credentials = outgoing.credentials(sending: request)
      return accepted
    }
    return try await perform(endpoint, exchange, terminal: terminal) {
      _ throws(HTTPError) in
      guard let request = shaped.withLock({ $0 }) else {
        throw .invalidRequest(reason: "a middleware answered without sending the request")
      }
      return request
    }
  }
}
