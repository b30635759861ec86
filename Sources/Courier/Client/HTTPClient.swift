import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A client for one HTTP API: it turns endpoints into requests, sends them through its
/// transport and decodes the answers.
///
/// ```swift
/// let client = HTTPClient(baseURL: URL(string: "https://api.themoviedb.org/3")!)
/// let page = try await client.send(MovieApi.popular(page: 1))   // a MoviePage
/// ```
///
/// Requests run concurrently: `send` is `nonisolated`, and encoding and decoding happen on
/// the caller's task, never on the actor's executor. Cancelling the calling task cancels
/// the request at once with ``HTTPError/cancelled``.
public actor HTTPClient {
  /// The URL that endpoint paths are joined to.
  public nonisolated let baseURL: URL
  /// What the client does for every request.
  public nonisolated let configuration: Configuration
  /// What sends the requests.
  public nonisolated let transport: any HTTPTransport

  private nonisolated let builder: RequestBuilder
  nonisolated let limiter: RequestLimiter
  nonisolated let coalescer = RequestCoalescer()
  private nonisolated let requestCounter = Locked<UInt64>(0)
  /// `configuration.redactedNames`, lowercased.
  nonisolated let redactedNames: Set<String>

  /// Creates a client.
  ///
  /// - Parameters:
  ///   - baseURL: An absolute `http` or `https` URL, possibly with a path (`…/3`). Query
  ///     items in it (`…/3?api_key=…`) are sent with every request, before the endpoint's.
  ///   - configuration: Headers, timeout, coders and limits for every request.
  ///   - transport: What sends requests; by default a ``URLSessionTransport`` with a session
  ///     of its own, invalidated when the client goes away.
  public init(
    baseURL: URL,
    configuration: Configuration = Configuration(),
    transport: (any HTTPTransport)? = nil
  ) {
    self.baseURL = baseURL
    self.configuration = configuration
    self.transport = transport ?? URLSessionTransport()
    self.builder = RequestBuilder(baseURL: baseURL, configuration: configuration)
    self.redactedNames = Set(configuration.redactedNames.map { $0.lowercased() })
    self.limiter = RequestLimiter(
      maximum: configuration.maximumConcurrentRequests,
      maximumPerHost: configuration.maximumConcurrentRequestsPerHost)
  }

  // MARK: - Sending

  /// Sends the endpoint's request and returns its decoded answer.
  ///
  /// The result may be ignored, for endpoints that answer ``EmptyResponse``.
  ///
  /// - Throws: ``HTTPError``: `invalidRequest` (nothing was sent), `transport`, `timedOut`,
  ///   `cancelled`, `unacceptableStatus`, `decodingFailed` or `responseTooLarge`.
  @discardableResult
  public nonisolated func send<E: Endpoint>(_ endpoint: E) async throws(HTTPError) -> E.Response {
    try await response(for: endpoint).value
  }

  /// Sends the endpoint's request and returns its decoded answer with the response it came
  /// from (status, headers, body bytes, URL).
  public nonisolated func response<E: Endpoint>(for endpoint: E) async throws(HTTPError)
    -> DecodedResponse<E.Response>
  {
    guard let observer = configuration.observer else {
      return try await exchange(
        endpoint, request: try builder.urlRequest(for: endpoint), events: nil)
    }
    let built = Result { () throws(HTTPError) in try builder.urlRequest(for: endpoint) }
    let id = requestCounter.withLock { count in
      count += 1
      return count
    }
    let url =
      (try? built.get()).map { Redaction.url($0.url, extra: redactedNames) } ?? "(not built)"
    let events = EventReporter(
      observer: observer, request: HTTPEventRequest(id: id, method: endpoint.method, url: url),
      credentials: Credentials(names: redactedNames))
    events.started()
    do throws(HTTPError) {
      let result = try await exchange(endpoint, request: try built.get(), events: events)
      events.finished(result.response)
      return result
    } catch {
      events.failed(error)
      throw error
    }
  }

  /// Sends a built request (through the middleware), validates and decodes. Responses and
  /// errors carry the credential rules of the request as sent (see ``Credentials``), so
  /// that their descriptions redact them.
  private nonisolated func exchange<E: Endpoint>(
    _ endpoint: E, request: URLRequest, events: EventReporter?
  ) async throws(HTTPError) -> DecodedResponse<E.Response> {
    let timeout = endpoint.timeout ?? configuration.timeout
    do throws(HTTPError) {
      let response = try await throughMiddleware(
        endpoint, request: request, timeout: timeout, events: events
      ) { request, timeout, credentials throws(HTTPError) in
        try await self.data(for: request, timeout: timeout, credentials: credentials)
      }
      return try decoded(endpoint, from: response)
    } catch {
      throw Credentials(names: redactedNames).applied(to: error)
    }
  }

  /// Passes a built request through the middleware to `send`, which does the sending with
  /// the request's credential names (the client's, and those middleware marked).
  nonisolated func throughMiddleware<E: Endpoint>(
    _ endpoint: E, request: URLRequest, timeout: Duration?, events: EventReporter?,
    send:
      @escaping @Sendable (URLRequest, Duration?, Set<String>) async throws(HTTPError) ->
      HTTPResponse
  ) async throws(HTTPError) -> HTTPResponse {
    guard !configuration.middleware.isEmpty else {
      return try await send(request, timeout, redactedNames)
    }
    let chain = MiddlewareNext(configuration.middleware) { request throws(HTTPError) in
      try await send(request.urlRequest, request.timeout, request.credentialNames)
    }
    var outgoing = OutgoingRequest(
      urlRequest: request, options: endpoint.options, timeout: timeout)
    outgoing.events = events
    outgoing.credentialNames = redactedNames
    outgoing.clientBaseURL = baseURL
    return try await chain(outgoing)
  }

  /// Validates the status and decodes the body.
  nonisolated func decoded<E: Endpoint>(_ endpoint: E, from response: HTTPResponse)
    throws(HTTPError) -> DecodedResponse<E.Response>
  {
    guard acceptableStatusCodes(for: endpoint).contains(response.status) else {
      throw .unacceptableStatus(response)
    }
    do {
      let value = try endpoint.decode(response, using: configuration.decoder)
      return DecodedResponse(value: value, response: response)
    } catch let error as HTTPError {
      throw error
    } catch {
      throw .decodingFailed(
        reason: DecodingFailure.describe(error, as: E.Response.self), response: response)
    }
  }

  /// The status codes that count as success for `endpoint`.
  nonisolated func acceptableStatusCodes<E: Endpoint>(for endpoint: E) -> StatusCodes {
    endpoint.acceptableStatusCodes ?? configuration.acceptableStatusCodes
  }

  // MARK: - Paging

  /// The pages of a ``PagedEndpoint`` as an `AsyncSequence`, starting from `first`: each is
  /// fetched when the loop asks for it, and the loop ends after the last page.
  ///
  /// ```swift
  /// for try await page in client.pages(MovieApi.popular(page: 1), maximumPages: 10) {
  ///   print(page.results.count)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - first: The endpoint of the first page.
  ///   - maximumPages: Stop after this many pages; `nil` (the default) for all of them.
  ///   - prefetch: Fetch the next page while the loop works on the current one; off by
  ///     default (it holds two pages and may fetch one the loop never asks for).
  public nonisolated func pages<E: PagedEndpoint>(
    _ first: E, maximumPages: Int? = nil, prefetch: Bool = false
  ) -> Pages<E> {
    Pages(client: self, first: first, maximumPages: maximumPages, prefetches: prefetch)
  }

  // MARK: - Inspecting

  /// The exact `URLRequest` an endpoint becomes, without sending it: URL, method, headers
  /// (defaults merged), body and timeout. Use it to unit-test endpoint definitions.
  ///
  /// - Throws: ``HTTPError/invalidRequest(reason:)`` when the endpoint cannot form a request.
  public nonisolated func urlRequest<E: Endpoint>(for endpoint: E) throws(HTTPError) -> URLRequest {
    try builder.urlRequest(for: endpoint)
  }

  // MARK: - Transport

  /// Sends a built request: shared with identical requests in flight, within the
  /// concurrency limits and the deadline; then checks the body size. The response, and any
  /// error, carries the request's credential rules (`credentialNames` and the request as
  /// sent) for redacting descriptions.
  nonisolated func data(
    for request: URLRequest, timeout: Duration?, credentials credentialNames: Set<String>
  ) async throws(HTTPError) -> HTTPResponse {
    let credentials = Credentials(names: credentialNames, request: request)
    do throws(HTTPError) {
      guard !Task.isCancelled else { throw .cancelled }
      let context = TransportContext(
        maximumBytes: configuration.maximumResponseBytes, idleTimeout: configuration.idleTimeout,
        credentialNames: credentialNames)
      let response: HTTPResponse
      let method = request.httpMethod ?? "GET"
      if configuration.coalescesRequests && (method == "GET" || method == "HEAD") {
        response = try await coalescer.response(for: .init(request, timeout: timeout)) {
          () async throws(HTTPError) in
          try await self.limitedSend(request, timeout: timeout, context: context)
        }
      } else {
        response = try await limitedSend(request, timeout: timeout, context: context)
      }
      if let limit = configuration.maximumResponseBytes, response.body.count > limit {
        throw .responseTooLarge(limit: limit)
      }
      var answered = response
      answered.requestURL = request.url
      answered.credentials = credentials
      return answered
    } catch {
      throw credentials.applied(to: error)
    }
  }

  /// Sends through the transport holding the permits the limits ask for. The deadline
  /// starts once the permits are held.
  private nonisolated func limitedSend(
    _ request: URLRequest, timeout: Duration?, context: TransportContext
  ) async throws(HTTPError) -> HTTPResponse {
    let transport = self.transport
    return try await limited(request, context: context) { () async throws(HTTPError) in
      if let timeout {
        return try await transport.send(request, deadline: .now + timeout)
      }
      return try await transport.send(request)
    }
  }

  /// Runs `operation` holding the permits the limits ask for, with `context` (size limit,
  /// idle timeout, credential names) handed down to the transport.
  nonisolated func limited(
    _ request: URLRequest, context: TransportContext,
    _ operation: () async throws(HTTPError) -> HTTPResponse
  ) async throws(HTTPError) -> HTTPResponse {
    guard limiter.isLimiting else {
      return try await within(context, operation)
    }
    let origin = request.url.map { "\($0.host ?? ""):\($0.port ?? -1)" } ?? ""
    return try await limiter.run(host: origin) { () async throws(HTTPError) in
      try await within(context, operation)
    }
  }

  private nonisolated func within(
    _ context: TransportContext, _ operation: () async throws(HTTPError) -> HTTPResponse
  ) async throws(HTTPError) -> HTTPResponse {
    let outcome = await TransportContext.$current.withValue(context) {
      () async -> Result<HTTPResponse, HTTPError> in
      do throws(HTTPError) {
        return .success(try await operation())
      } catch {
        return .failure(error)
      }
    }
    return try outcome.get()
  }
}
