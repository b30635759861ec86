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
/// Every kind of request — ``send(_:)``, ``response(for:)``, paging, downloads, uploads,
/// byte and event streams — goes one way: endpoint → request → middleware → request sharing
/// and concurrency limits → transport, and reports to the observer as it goes.
///
/// The actor's isolation guards nothing on the hot path: the client's configuration is
/// immutable and every request method is `nonisolated`, so requests run concurrently, and
/// encoding and decoding happen on the caller's task, never on the actor's executor. What
/// little state requests share (requests in flight to share, permits of the concurrency
/// limits) lives in small lock-guarded values. Cancelling the calling task cancels the
/// request at once with ``HTTPError/cancelled``.
public actor HTTPClient {
  /// The URL that endpoint paths are joined to.
  public nonisolated let baseURL: URL
  /// What the client does for every request.
  public nonisolated let configuration: Configuration
  /// What sends the requests: the transport passed to ``init(baseURL:configuration:transport:)``,
  /// or the default it made. To see which default a client got on Linux:
  /// `client.transport is CurlTransport`.
  public nonisolated let transport: any HTTPTransport

  nonisolated let builder: RequestBuilder
  nonisolated let limiter: RequestLimiter
  nonisolated let coalescer = RequestCoalescer()
  nonisolated let requestCounter = Locked<UInt64>(0)
  /// `configuration.redactedNames`, lowercased.
  nonisolated let redactedNames: Set<String>
  /// The credentials the transport puts on requests out of their sight (its proxy's login),
  /// which the credential rule scrubs as it does a request's own (``HoldsCredentials``).
  nonisolated let heldCredentials: [String]
  /// The client's credential rule: its ``redactedNames`` and ``heldCredentials``, for any
  /// request.
  nonisolated var credentialRule: Credentials {
    Credentials(names: redactedNames, held: heldCredentials)
  }

  /// Creates a client.
  ///
  /// - Parameters:
  ///   - baseURL: An absolute `http` or `https` URL, possibly with a path (`…/3`). Query
  ///     items in it (`…/3?api_key=…`) are sent with every request made from a path, before
  ///     the endpoint's (not to an endpoint's absolute URL).
  ///   - configuration: Headers, timeout, coders and limits for every request.
  ///   - transport: What sends requests. By default the process's one transport, shared by
  ///     every client given none, so that a client made for each request still reuses
  ///     connections: on Apple platforms a ``URLSessionTransport``; on Linux a `CurlTransport`
  ///     whenever the system's libcurl loads, and a ``URLSessionTransport`` when it does not.
  ///     A transport you pass is the client's alone to share. On Linux the environment variable
  ///     `COURIER_TRANSPORT` (`curl` or `urlsession`) chooses the default instead, so a whole
  ///     test suite runs on either; other values are ignored. ``transport`` says which it got.
  public init(
    baseURL: URL,
    configuration: Configuration = Configuration(),
    transport: (any HTTPTransport)? = nil
  ) {
    self.baseURL = baseURL
    self.configuration = configuration
    self.transport = transport ?? DefaultTransport.make()
    self.builder = RequestBuilder(baseURL: baseURL, configuration: configuration)
    self.redactedNames = Set(configuration.redactedNames.map { $0.lowercased() })
    self.heldCredentials = (self.transport as? any HoldsCredentials)?.heldCredentials ?? []
    self.limiter = RequestLimiter(
      maximum: configuration.maximumConcurrentRequests,
      maximumPerHost: configuration.maximumConcurrentRequestsPerHost, clock: configuration.clock)
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
    try await perform(endpoint, collecting(endpoint)) { response throws(HTTPError) in
      try self.decoded(endpoint, from: response).value
    }
  }

  /// Sends the endpoint's request and returns its decoded answer with the response it came
  /// from (status, headers, body bytes, URL).
  public nonisolated func response<E: Endpoint>(for endpoint: E) async throws(HTTPError)
    -> DecodedResponse<E.Response>
  {
    try await perform(endpoint, collecting(endpoint)) { response throws(HTTPError) in
      try self.decoded(endpoint, from: response)
    }
  }

  /// The exchange of a buffered request: its body collected, within the client's limits.
  nonisolated func collecting<E: Endpoint>(_ endpoint: E) -> Exchange {
    Exchange(
      use: .collect, timeout: endpoint.timeout ?? configuration.timeout,
      idleTimeout: configuration.idleTimeout, maximumBytes: configuration.maximumResponseBytes,
      acceptable: acceptableStatusCodes(for: endpoint))
  }

  /// Validates the status and decodes the body.
  nonisolated func decoded<E: Endpoint>(_ endpoint: E, from response: HTTPResponse)
    throws(HTTPError) -> DecodedResponse<E.Response>
  {
    guard acceptableStatusCodes(for: endpoint).contains(response.status) else {
      throw .unacceptableStatus(response)
    }
    // The start of an error body, cut for a caller that did not accept its status.
    if let limit = response.bodyCutPast { throw .responseTooLarge(limit: limit) }
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
  ///   - maximumPages: Stop after this many pages; `nil` (the default) for all of them. Zero
  ///     gives none; below zero, the first iteration throws
  ///     ``HTTPError/invalidRequest(reason:)`` and nothing is sent.
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
}

extension HTTPClient: CustomReflectable {
  /// The base URL by the client's credential rule (user-info and credential query values
  /// redacted), the configuration and the transport, whose mirrors show no credential and
  /// none of the live state of requests in flight.
  public nonisolated var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "baseURL": credentialRule.describe(baseURL),
        "configuration": configuration, "transport": transport,
      ],
      displayStyle: .class)
  }
}
