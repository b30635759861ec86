import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPClient {
  // MARK: - The pipeline

  /// The one way every request goes, its stages called in order: builds it, reports it to
  /// the observer, runs the middleware (``runMiddleware(_:exchange:events:)``) down to
  /// ``sendAfterMiddleware(_:exchange:events:)`` — the cache
  /// (``answerThroughCache(_:_:cache:exchange:events:)``), sharing with identical requests
  /// (``fetchShared(_:_:_:_:update:)``), the limits (``withinLimits(_:_:_:_:)``), the
  /// transport — and turns the response into the caller's outcome (decoding, a committed
  /// file…). Errors come out with the request's credentials redacted from their
  /// descriptions.
  ///
  /// A `terminal` takes the place of ``sendAfterMiddleware(_:exchange:events:)`` at the end
  /// of the middleware (a WebSocket's upgrade).
  nonisolated func perform<E: Endpoint, T>(
    _ endpoint: E, _ exchange: Exchange, request: TransportRequest? = nil,
    terminal: Terminal? = nil, outcome: (HTTPResponse) async throws(HTTPError) -> T
  ) async throws(HTTPError) -> T {
    let built = Result { () throws(HTTPError) -> TransportRequest in
      try Exchange.check(
        timeout: exchange.timeout, idleTimeout: exchange.transport.idleTimeout,
        maximumBytes: exchange.maximumBytes, bufferSize: exchange.transport.bufferSize)
      if let request { return request }
      return try builder.request(for: endpoint)
    }
    let events = configuration.observer.map { observer in
      let request = try? built.get()
      // No body is a known length: 0.
      let bodyLength = request.flatMap { $0.body == nil ? 0 : $0.body?.length }
      return EventReporter(
        observer: observer, id: nextRequestID(), method: endpoint.method, url: request?.url,
        bodyLength: bodyLength, credentials: credentialRule)
    }
    events?.started()
    // A body that is not collected is counted for the event as its reader takes it.
    var exchange = exchange
    if let events { exchange.transport.timings = { events.measured($0) } }
    #if Tracing
      exchange.tracing = RequestTracing(configuration.tracer)
    #endif
    let received = events != nil && !exchange.collects ? Locked<Int64>(0) : nil
    if let received {
      let report = exchange.received
      exchange.received = { bytes, expected in
        received.withLock { $0 = bytes }
        report?(bytes, expected)
      }
    }
    do throws(HTTPError) {
      var outgoing = OutgoingRequest(
        try built.get(), options: endpoint.options, timeout: exchange.timeout)
      outgoing.credentialNames = redactedNames
      outgoing.heldCredentials = heldCredentials
      outgoing.cachePolicy = endpoint.cachePolicy
      let response: HTTPResponse
      if !configuration.middleware.isEmpty {
        let sending = exchange
        let end: Terminal
        if let terminal {
          end = terminal
        } else {
          end = { outgoing throws(HTTPError) in
            try await self.sendAfterMiddleware(outgoing, exchange: sending, events: events)
          }
        }
        response = try await runMiddleware(outgoing, events: events, terminal: end)
      } else if let terminal {
        response = try await terminal(outgoing)
      } else {
        response = try await sendAfterMiddleware(outgoing, exchange: exchange, events: events)
      }
      let value = try await outcome(response)
      guard let events else { return value }
      // A body still arriving is reported once its reader has read it or let it go (the
      // observer runs on the reader's side, never under a transport's lock); the hook must
      // not hold the body.
      var head = response
      head.bodyStream = nil
      let ended = head
      let credentials = credentialRule
      let report = { @Sendable (end: Result<Void, HTTPError>) in
        switch end {
        case .success:
          let bytes = received.map { counter in counter.withLock { Int($0) } } ?? 0
          events.finished(ended, bytes: max(bytes, ended.body.count))
        case .failure(let error):
          events.failed(credentials.applied(to: error))
        }
      }
      if let body = response.bodyStream { body.whenRead(report) } else { report(.success(())) }
      return value
    } catch {
      let error = credentialRule.applied(to: error)
      events?.failed(error)
      throw error
    }
  }

  /// What the middleware's chain ends in.
  typealias Terminal = @Sendable (OutgoingRequest) async throws(HTTPError) -> HTTPResponse

  /// Passes a built request through the middleware to `terminal`.
  private nonisolated func runMiddleware(
    _ outgoing: OutgoingRequest, events: EventReporter?, terminal: @escaping Terminal
  ) async throws(HTTPError) -> HTTPResponse {
    var outgoing = outgoing
    outgoing.events = events
    outgoing.clock = configuration.clock
    outgoing.clientBaseURL = baseURL
    outgoing.built = outgoing.request.head
    return try await MiddlewareNext(configuration.middleware, send: terminal)(outgoing)
  }

  /// The end of the middleware chain: asks the client's cache, shares the request with identical ones in flight (a buffered GET or HEAD), waits for
  /// the concurrency limits' permits, sends it, and takes the body where the exchange says.
  /// The response, and any error, carries the request's credential rules (its credential
  /// names, and the request as sent) for redacting descriptions.
  nonisolated func sendAfterMiddleware(
    _ outgoing: OutgoingRequest, exchange: Exchange, events: EventReporter?
  ) async throws(HTTPError) -> HTTPResponse {
    var request = outgoing.request
    try finishHead(&request.head, body: request.body, outgoing)
    var outgoing = outgoing
    if let jar = configuration.cookies {
      // The jar's cookies go on before the cache looks, so that they are part of its key;
      // the request's own go on again after each redirect within the origin.
      outgoing.ownCookie = request.head.value(forHTTPHeaderField: "Cookie")
      jar.addCookies(to: &request.head)
    }
    let credentials = outgoing.credentials(sending: request.head)
    do throws(HTTPError) {
      guard !Task.isCancelled else { throw .cancelled }
      var response: HTTPResponse
      if let cache = configuration.cache {
        response = try await answerThroughCache(
          request, outgoing, cache: cache, exchange: exchange, events: events)
      } else {
        response = try await fetchShared(request, outgoing, exchange, events)
      }
      response.requestURL = request.url
      // A redirect's answer knows what its last hop sent (the redirect loop's rules).
      response.credentials =
        response.credentials.request == nil
        ? credentials : credentials.merging(response.credentials)
      return response
    } catch {
      throw credentials.applied(to: error)
    }
  }

  /// The last steps of every chain's end (the transport's, a WebSocket's upgrade, a
  /// background transfer's hand-over) on the head as middleware left it: what middleware set
  /// is held to the builder's rules (``RequestBuilder/checkAfterMiddleware(_:built:body:)``),
  /// and credentials are kept home (``keepCredentialsHome(_:_:)``).
  nonisolated func finishHead(
    _ head: inout URLRequest, body: TransportRequestBody?, _ outgoing: OutgoingRequest
  ) throws(HTTPError) {
    if let built = outgoing.built {
      try RequestBuilder.checkAfterMiddleware(&head, built: built, body: body)
    }
    keepCredentialsHome(&head, outgoing)
  }

  /// Takes off `head`, when it goes to another origin than the client's (an absolute URL as
  /// a path), the credentials middleware put on it: the headers marked with
  /// ``OutgoingRequest/markCredential(_:)``, and every header the credential rule names
  /// (`Authorization`, `Cookie`, …) that a middleware added or changed. The endpoint's own
  /// headers for its URL stay. The last step of every chain's end before the transport.
  nonisolated func keepCredentialsHome(_ head: inout URLRequest, _ outgoing: OutgoingRequest) {
    guard let built = outgoing.built, !URLOrigin.same(baseURL, head.url) else { return }
    let rule = Credentials(names: outgoing.credentialNames)
    for (name, value) in head.allHTTPHeaderFields ?? [:]
    where outgoing.markedNames.contains(name.lowercased())
      || (rule.isCredential(name) && built.value(forHTTPHeaderField: name) != value)
    {
      head.setValue(nil, forHTTPHeaderField: name)
    }
  }

  /// Sends `request` to the server: shared with identical ones in flight when the exchange
  /// collects a GET or HEAD without a body. The cache's `update` applies to the server's
  /// answer once per network call, inside the sharing.
  nonisolated func fetchShared(
    _ request: TransportRequest, _ outgoing: OutgoingRequest, _ exchange: Exchange,
    _ events: EventReporter?, update: CacheUpdate? = nil
  ) async throws(HTTPError) -> HTTPResponse {
    let send = withinLimits(request, outgoing, exchange, events)
    let fetch: Fetch
    if let update {
      fetch = { () async throws(HTTPError) -> HTTPResponse in
        let answer = try await send()
        return try await self.updating(update, with: answer, outgoing, exchange, events)
      }
    } else {
      fetch = send
    }
    guard case .collect = exchange.use, configuration.coalescesRequests, request.body == nil,
      request.method == .get || request.method == .head
    else { return try await fetch() }
    let key = RequestCoalescer.Key(request.head, timeout: outgoing.timeout)
    // Without a cache update (which may write to disk), what follows the transport's answer
    // never blocks: the shared call may run it on the transport's thread.
    return try await coalescer.response(
      for: key, joined: { events?.waiting(for: .identicalRequest) }, inline: update == nil,
      fetch: fetch)
  }

  /// A request's network work, run once however many callers share it.
  typealias Fetch = @Sendable () async throws(HTTPError) -> HTTPResponse

  /// What sends `request` through the transport holding the permits the limits ask for,
  /// following redirects by the client's policy (the one redirect loop, with the cookie jar
  /// and the credential rule); the deadline starts once the permits are held and spans every
  /// hop. The work is the returned closure itself (called by the shared call's task, or at
  /// once), not a function it calls: one async frame fewer per request.
  nonisolated func withinLimits(
    _ request: TransportRequest, _ outgoing: OutgoingRequest, _ exchange: Exchange,
    _ events: EventReporter?
  ) -> Fetch {
    { () async throws(HTTPError) -> HTTPResponse in
      var permits: RequestLimiter.Permits?
      let limiter = self.limiter
      if limiter.isLimiting {
        let origin = URLOrigin(request.url)?.description ?? ""
        permits = try await limiter.acquire(
          host: origin, whenWaiting: { events?.waiting(for: .concurrencyLimit) })
      }
      let configuration = self.configuration
      var options = exchange.options(timeout: outgoing.timeout, now: configuration.clock.now)
      let jar = configuration.cookies
      let redirects = configuration.redirects
      options.followedRedirects = redirects
      let transport = self.transport
      #if Tracing
        if let tracing = exchange.tracing {
          return try await tracing.send(
            request, options: options, credentials: outgoing.credentials(sending: request.head),
            cookies: jar, ownCookie: outgoing.ownCookie, redirects: redirects, transport: transport,
            exchange: exchange, holding: permits, limiter: limiter, events: events,
            clock: configuration.clock)
        }
      #endif
      var response: TransportResponse
      let (first, timings) = HopTimings.start(options, redirects: 0)
      do throws(HTTPError) {
        // The first hop is sent from here, and the redirect loop entered only for a redirect.
        response = try await transport.send(request, options: first)
        timings?.answered(response, collected: options.collects(response.head))
        RedirectPolicy.store(jar, from: response, to: request)
        if redirects.follows(response.head) {
          response = try await redirects.following(
            from: response, to: request, options: options,
            credentialNames: outgoing.credentialNames, cookies: jar, ownCookie: outgoing.ownCookie,
            clock: configuration.clock
          ) { hop, options throws(HTTPError) in
            try await limiter.follow(&permits, to: hop.head.url, until: options.deadline) {
              events?.waiting(for: .concurrencyLimit)
            }
            return try await transport.send(hop, options: options)
          }
        }
      } catch {
        // The first hop's timings, when it failed (once answered, they are reported already).
        timings?.ended()
        permits?.release()
        throw error
      }
      return try await exchange.take(response, to: request, holding: permits)
    }
  }

  /// The next request number, from 1.
  private nonisolated func nextRequestID() -> UInt64 {
    requestCounter.withLock { count in
      count += 1
      return count
    }
  }
}
