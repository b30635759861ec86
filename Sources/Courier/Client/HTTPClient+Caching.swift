import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPClient {
  // MARK: - The cache

  /// `request` through `cache`: a `GET` whose body is collected is answered from it or sent
  /// (with validators, when revalidating) and its answer stored or used to refresh; a `GET`
  /// whose body streams is answered by a fresh stored response (its body in memory) or sent
  /// as it is, its answer not stored; an unsafe request that succeeds removes what is stored
  /// for its URL; anything else passes by. The observer hears the cache's verdict.
  nonisolated func answerThroughCache(
    _ request: TransportRequest, _ outgoing: OutgoingRequest, cache: HTTPCache,
    exchange: Exchange, events: EventReporter?
  ) async throws(HTTPError) -> HTTPResponse {
    if case .stream = exchange.use, HTTPCache.answers(request.head) {
      let key = CacheKey(request.head, credentials: outgoing.credentials, salt: cache.salt)
      switch cache.plan(
        for: request.head, key: key, policy: outgoing.cachePolicy,
        maximumBytes: exchange.maximumBytes)
      {
      case .answer(let stored):
        events?.cache(stored.cacheStatus)
        return stored
      case .fail(let error):
        events?.cache(.miss)
        throw error
      case .answerThenRevalidate, .send:
        events?.cache(.miss)
        return try await fetchShared(request, outgoing, exchange, events)
      }
    }
    guard exchange.collects, HTTPCache.answers(request.head) else {
      // A GET with the caller's own conditions or range: a fresh stored response may settle it.
      if exchange.collects, (request.head.httpMethod ?? "GET") == "GET",
        let answer = cache.answerCallerConditions(
          request.head,
          key: CacheKey(request.head, credentials: outgoing.credentials, salt: cache.salt),
          policy: outgoing.cachePolicy, maximumBytes: exchange.maximumBytes)
      {
        events?.cache(answer.cacheStatus)
        return answer
      }
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
    case .answerThenRevalidate(let stale, let head, let validated):
      response = stale
      let update = CacheUpdate(
        cache: cache, original: request, sent: head, key: key, validated: validated, stale: nil,
        requestTime: cache.clock())
      cache.revalidations.start(key.primary + (head.url?.absoluteString ?? "")) {
        _ = try? await self.fetchShared(
          TransportRequest(head: head, body: nil), outgoing, exchange, nil, update: update)
      }
    case .send(let head, let validated, let stale):
      let update = CacheUpdate(
        cache: cache, original: request, sent: head, key: key, validated: validated, stale: stale,
        requestTime: cache.clock())
      do {
        response = try await fetchShared(
          TransportRequest(head: head, body: nil), outgoing, exchange, events, update: update)
      } catch {
        // A request that failed (not one cancelled or refused) is answered by a stale response
        // that allows it (`stale-if-error`).
        let failed =
          switch error {
          case .transport, .timedOut: true
          default: false
          }
        guard failed, let standIn = cache.standIn(stale, for: head) else { throw error }
        response = standIn
      }
    }
    events?.cache(response.cacheStatus)
    return response
  }

  /// What the cache does with the answer to a request it let through: stores it, or
  /// refreshes what it holds with a `304`, once per network call (inside the sharing).
  struct CacheUpdate: Sendable {
    let cache: HTTPCache
    /// The request as the caller made it, and as sent (with validators when revalidating).
    let original: TransportRequest
    let sent: URLRequest
    let key: CacheKey
    let validated: CacheEntry?
    /// The stored response that may stand in for a server error (`stale-if-error`).
    let stale: CacheEntry?
    let requestTime: Date
  }

  /// `answer` to `update`'s request, stored or used to refresh: what the caller gets.
  nonisolated func updating(
    _ update: CacheUpdate, with answer: HTTPResponse, _ outgoing: OutgoingRequest,
    _ exchange: Exchange, _ events: EventReporter?
  ) async throws(HTTPError) -> HTTPResponse {
    let cache = update.cache
    switch cache.received(
      answer, for: update.sent, key: update.key, validated: update.validated, stale: update.stale,
      requestTime: update.requestTime)
    {
    case .response(let response):
      return response
    case .sendAgain:
      // The server's 304 named another representation: ask again, without conditions.
      let original = update.original
      let again = try await withinLimits(original, outgoing, exchange, events)()
      guard
        case .response(let response) = cache.received(
          again, for: original.head, key: update.key, validated: nil, requestTime: cache.clock())
      else { return again }
      return response
    }
  }
}
