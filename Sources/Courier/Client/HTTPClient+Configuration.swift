import Foundation

#if Tracing
  import Tracing
#endif

extension HTTPClient {
  /// What a client does for every request unless an endpoint says otherwise.
  ///
  /// ```swift
  /// var configuration = HTTPClient.Configuration()
  /// configuration.headers["X-Client"] = "movies/1.0"
  /// configuration.timeout = .seconds(10)
  /// configuration.decoder.keyDecodingStrategy = .convertFromSnakeCase
  /// let client = HTTPClient(baseURL: url, configuration: configuration)
  /// ```
  ///
  /// `encoder` and `decoder` are shared objects: set their strategies before creating
  /// clients, and do not change them while requests are under way.
  public struct Configuration: Sendable {
    /// Headers sent with every request; an endpoint's headers of the same name win.
    public var headers: HTTPHeaders
    /// How long a whole request may take, redirects included, from the moment it has passed
    /// the middleware and holds its permits until the body has arrived: the wait for a
    /// permit of ``maximumConcurrentRequests`` and the time a middleware takes before passing
    /// the request on (fetching a token, say) are not counted. `nil` for no deadline
    /// (``idleTimeout`` still applies).
    /// 60 seconds by default. Enforced by the client, so fractions of a second work on
    /// every platform. With ``RetryPolicy``, each attempt has its own timeout. Zero or less
    /// (here or an endpoint's) fails every request with ``HTTPError/invalidRequest(reason:)``,
    /// sending nothing.
    public var timeout: Duration?
    /// How long any request — a `send`, a download, an upload, a byte or event stream — may
    /// go without a byte moving either way before it ends with ``HTTPError/timedOut``;
    /// 60 seconds by default, `nil` for no limit. Unlike ``timeout`` it never ends a
    /// transfer that is making progress, however long it takes: it ends the one whose server
    /// has gone quiet. It runs from the start of each exchange, so it also bounds the wait
    /// for the response head. ``TransferOptions/idleTimeout`` overrides it for one transfer, and
    /// ``HTTPClient/events(_:reconnection:options:)`` reconnects after it as after a drop
    /// (an event stream that may rightly stay silent for longer needs a longer one).
    /// Transports enforce it (``URLSessionTransport`` to the millisecond on every platform,
    /// `CurlTransport` too). Zero or less fails every request with
    /// ``HTTPError/invalidRequest(reason:)``, sending nothing.
    public var idleTimeout: Duration?
    /// Encodes `.json` bodies that name no encoder of their own.
    public var encoder: JSONEncoder
    /// Decodes `Decodable` answers.
    public var decoder: JSONDecoder
    /// How arrays and booleans in queries and form bodies are written.
    public var queryEncoding: QueryEncoding
    /// The status codes that count as success; `200..<300` by default.
    public var acceptableStatusCodes: StatusCodes
    /// The largest response body accepted, in bytes; larger ones fail with
    /// ``HTTPError/responseTooLarge(limit:)``, but for an answer of a status the endpoint
    /// does not accept: that is ``HTTPError/unacceptableStatus(_:)``, with its body whole
    /// within the limit and its first 64 KiB past it. 16 MiB by default; `nil` for no limit (a
    /// negative limit fails every request with ``HTTPError/invalidRequest(reason:)``).
    /// Transports enforce it as bytes arrive (decoded bytes, after gzip): a `Content-Length`
    /// over it fails before the body is read, and a longer body is cut off at the limit; the
    /// client counts again as it reads, so the limit holds on any transport. It also bounds
    /// what a stream holds in memory whole: an event of ``HTTPClient/events(_:reconnection:options:)``
    /// and a line of ``ByteStream/lines`` (a stream's body itself has
    /// ``TransferOptions/maximumBytes``, none by default).
    public var maximumResponseBytes: Int?
    /// The most requests this client has in flight at once; more wait their turn, first
    /// come, first served. `nil` (the default) for no limit; below 1, every request fails
    /// with ``HTTPError/invalidRequest(reason:)`` and none is sent. Time spent waiting does
    /// not count against a request's timeout.
    public var maximumConcurrentRequests: Int?
    /// The most requests in flight to one origin (scheme, host and port) at once, however
    /// its URLs spell it (`https://h`, `HTTPS://H:443`); `nil` (the default) for no limit;
    /// below 1, every request fails with ``HTTPError/invalidRequest(reason:)``. A request
    /// counts against the origin it is talking to: when a redirect sends it to another, it
    /// gives its place back and waits its turn there (that wait, unlike the first, counts
    /// against its timeout: still waiting when the timeout is up, the request throws
    /// ``HTTPError/timedOut`` and holds nothing).
    public var maximumConcurrentRequestsPerHost: Int?
    /// Whether identical concurrent `GET` and `HEAD` requests (same URL, headers and
    /// timeout) share one network call; on by default. Never applies to other methods.
    public var coalescesRequests: Bool
    /// The middleware every request passes through, outermost first; none by default.
    /// Usually: retries, then authentication, then logging (see <doc:UsingMiddleware>).
    public var middleware: [any Middleware]
    /// Receives every request's ``HTTPEvent``s (started, retrying, finished, failed) — sends,
    /// pages, downloads, uploads, and each connection of a byte or event stream (finished
    /// when its body has been delivered); `nil` (the default) for none, which costs
    /// nothing. See ``HTTPEvent/makeStream(bufferingNewest:)``.
    public var observer: (@Sendable (HTTPEvent) -> Void)?
    /// How requests follow redirects: up to 10 hops by default (``RedirectPolicy/default``).
    /// The client follows them itself, whatever the transport, with the cookie jar and the
    /// deadline spanning every hop (a ``BackgroundSession``'s transfers excepted: the system
    /// follows their redirects itself). Whatever the policy, a redirect to another origin never
    /// carries a credential, and a target other than `http` or `https` is refused.
    public var redirects: RedirectPolicy
    /// Header and query names whose values are credentials, besides those Courier
    /// recognises (`Authorization`, `Cookie`, names containing `auth`, `token`, `key`,
    /// `secret`, `password`, `session`…): shown as `<redacted>` in every error description,
    /// log line, curl command and event of this client.
    public var redactedNames: Set<String>
    /// The private HTTP cache the client keeps responses in (RFC 9111); `nil` (the default)
    /// for none. It sits inside the middleware, just before the transport, so it sees each
    /// request as it will be sent — with the credentials authentication middleware added,
    /// which are part of its key — and middleware sees cached answers like any other.
    public var cache: HTTPCache?
    /// The cookies the client stores from responses and sends back (RFC 6265bis); `nil`
    /// (the default) for none. Like the cache, it sits just before the transport: every
    /// request, each hop of a redirect included, carries the jar's cookies for its URL, and
    /// every response's `Set-Cookie` is stored. See ``CookieJar``.
    public var cookies: CookieJar?
    #if Tracing
      /// Records a client span for each request sent to a server — each attempt of a retry
      /// and each hop of a redirect — and injects its trace context into the request's headers
      /// (W3C `traceparent` and `tracestate` with an OpenTelemetry tracer), with the `Tracing`
      /// trait. `InstrumentationSystem.tracer` when the configuration is made, so bootstrap the
      /// tracing backend first; `nil`, or a `NoOpTracer`, for none. See <doc:Observability>.
      public var tracer: (any Tracer)? = InstrumentationSystem.tracer
    #endif

    /// The clock deadlines are measured from and reconnection delays waited on: the
    /// continuous clock, or a manual one in Courier's tests (give the transport the same).
    package var clock: any TransportClock = ContinuousClock()

    /// Creates a configuration; every parameter has a sensible default.
    public init(
      headers: HTTPHeaders = HTTPHeaders(),
      timeout: Duration? = .seconds(60),
      idleTimeout: Duration? = .seconds(60),
      encoder: JSONEncoder = JSONEncoder(),
      decoder: JSONDecoder = JSONDecoder(),
      queryEncoding: QueryEncoding = QueryEncoding(),
      acceptableStatusCodes: StatusCodes = .success,
      maximumResponseBytes: Int? = 16 * 1024 * 1024,
      maximumConcurrentRequests: Int? = nil,
      maximumConcurrentRequestsPerHost: Int? = nil,
      coalescesRequests: Bool = true,
      middleware: [any Middleware] = [],
      observer: (@Sendable (HTTPEvent) -> Void)? = nil,
      redactedNames: Set<String> = [],
      redirects: RedirectPolicy = .default,
      cache: HTTPCache? = nil,
      cookies: CookieJar? = nil
    ) {
      self.cache = cache
      self.cookies = cookies
      self.redirects = redirects
      self.headers = headers
      self.timeout = timeout
      self.idleTimeout = idleTimeout
      self.encoder = encoder
      self.decoder = decoder
      self.queryEncoding = queryEncoding
      self.acceptableStatusCodes = acceptableStatusCodes
      self.maximumResponseBytes = maximumResponseBytes
      self.maximumConcurrentRequests = maximumConcurrentRequests
      self.maximumConcurrentRequestsPerHost = maximumConcurrentRequestsPerHost
      self.coalescesRequests = coalescesRequests
      self.middleware = middleware
      self.observer = observer
      self.redactedNames = redactedNames
    }
  }
}
