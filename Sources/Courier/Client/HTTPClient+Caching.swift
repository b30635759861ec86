import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPClient {
  // MARK: - The cache

  /// `request` through `cache`: a `GET` whose body is collected is answered from it or sent
  /// (with validators, when revalidating) and its answer stored or used to refresh; an
  /// unsafe request that succeeds removes what is stored for its URL; anything else passes
  /// by. The observer hears the cache's verdict.
  nonisolated func answerThroughCache(
    _ request: TransportRequest, _ outgoing: OutgoingRequest, cache: HTTPCache,
    exchange: Exchange, events: EventReporter?
  ) async throws(HTTPError) -> HTTPResponse {
    guard exchange.collects, HTTPCache.answers(request.head) else {
      let response = try await fetchShared(request, outgoing, exchange, events)
      cache.invalidate(after: response, to: request.head)
      return response
    }
    let key = CacheKey(request.head, credentials: outgoing.credentials, salt: cache.salt)
    let response: HTTPResponse
    switch cache.plan(
      for: request.head, key: key, policy: outgoing.cachePolicy,
      maximumBytes: exchange.maximumBytes)
    {
    case .answer(let stored):
      response = stored
    case .fail(let error):
      events?.cache(.miss)
      throw error
    case .send(let head, let validated):
      let sending = TransportRequest(head: head, body: nil)
      let requestTime = cache.clock()
      response = try await fetchShared(sending, outgoing, exchange, events) {
        answer throws(HTTPError) in
        switch cache.received(
          answer, for: head, key: key, validated: validated, requestTime: requestTime)
        {
        case .response(let response):
          return response
        case .sendAgain:
          // The server's 304 named another representation: ask again, without conditions.
          let again = try await self.sendWithinLimits(request, outgoing, exchange, events)
          guard
            case .response(let response) = cache.received(
              again, for: request.head, key: key, validated: nil, requestTime: cache.clock())
          else { return again }
          return response
        }
      }
    }
    events?.cache(response.cacheStatus)
    return response
  }
}
