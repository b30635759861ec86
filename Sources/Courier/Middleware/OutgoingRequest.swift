import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A request on its way through the middleware: the built `URLRequest` (its head), its
/// body, and what the endpoint asked for.
public struct OutgoingRequest: Sendable {
  /// The request as the transport gets it: the one request value from the builder through
  /// the middleware to the transport, never rebuilt on the way.
  var request: TransportRequest

  /// The request head as it will be sent: method, URL, headers.
  public var urlRequest: URLRequest {
    get { request.head }
    set {
      request.head = newValue
      takeBodyFromHead()
    }
    _modify {
      // In place: a header set on it does not copy the request's storage.
      yield &request.head
      takeBodyFromHead()
    }
  }
  /// The body, apart from ``urlRequest``, as the transport will send it: in memory
  /// (``TransportRequestBody/data``), from disk (``TransportRequestBody/file``), or a stream. A
  /// middleware sits just above the transport, so it meets the transport's type here. A
  /// middleware may set it, or set `urlRequest.httpBody`, which becomes this when it is `nil`.
  public var body: TransportRequestBody? {
    get { request.body }
    set { request.body = newValue }
  }
  /// Whether the request can be sent again, as a middleware that retries or replays it asks
  /// first: true unless its body is a one-time stream that has been opened
  /// (``TransportRequestBody/isReplayable``).
  public var isReplayable: Bool {
    request.body?.isReplayable ?? true
  }
  /// The endpoint's options, e.g. ``RequestOptions/noRetry``.
  public var options: RequestOptions
  /// How the request uses the client's ``HTTPCache``: the endpoint's
  /// ``Endpoint/cachePolicy``, which a middleware may change (to reload after a failure…).
  public var cachePolicy: HTTPCache.Policy = .useCache
  /// The timeout for each attempt, or `nil` for none.
  public var timeout: Duration?
  /// Which attempt this is, from 1; a retrying middleware counts up.
  public var attempt: Int
  /// The base URL of the client sending it; `nil` outside a client.
  public internal(set) var clientBaseURL: URL?
  /// Where this request's events go, when the client has an observer.
  var events: EventReporter?
  /// The clock the client measures its timeouts on (a manual one in tests): a middleware's
  /// own wait bounded by ``timeout`` runs on it.
  var clock: any TransportClock = ContinuousClock()
  /// Header and query names (lowercased) whose values this request treats as credentials,
  /// besides those Courier recognises by itself (`Authorization`, `Cookie`, names containing
  /// `auth`, `token`, `key`, `secret`…): the client's
  /// ``HTTPClient/Configuration/redactedNames`` and the names middleware marked with
  /// ``markCredential(_:)``.
  public internal(set) var credentialNames: Set<String> = []
  /// The names middleware marked with ``markCredential(_:)``: headers of these names are
  /// taken off a request to another origin than the client's just before it is sent.
  var markedNames: Set<String> = []
  /// The credentials the client's transport puts on the request out of its sight (its
  /// proxy's login): ``HTTPClient/heldCredentials``.
  var heldCredentials: [String] = []
  /// The request as the endpoint and the client built it, before any middleware (`nil` when
  /// none ran): a credential header a middleware added or changed is taken off a request to
  /// another origin, one the endpoint set itself stays.
  var built: URLRequest?
  /// The `Cookie` field of the request as it leaves, before the client's cookie jar adds its
  /// own: what each redirect within the origin carries again, beside the jar's cookies for
  /// its target (set by the client as the chain ends).
  var ownCookie: String?

  /// Creates an outgoing request, e.g. to test a middleware; a body given in `urlRequest`
  /// (`httpBody`) becomes ``body`` unless `body` is given.
  public init(
    urlRequest: URLRequest, body: TransportRequestBody? = nil, options: RequestOptions = [],
    timeout: Duration? = nil, attempt: Int = 1
  ) {
    self.init(
      TransportRequest(head: urlRequest, body: body), options: options, timeout: timeout,
      attempt: attempt)
  }

  /// A body given as the head's `httpBody` moves to ``body`` (unless there is one), as the
  /// transport takes it.
  private mutating func takeBodyFromHead() {
    guard request.head.httpBody != nil || request.head.httpBodyStream != nil else { return }
    request = TransportRequest(head: request.head, body: request.body)
  }

  /// The built `request` on its way through the middleware.
  init(
    _ request: TransportRequest, options: RequestOptions, timeout: Duration?, attempt: Int = 1
  ) {
    self.request = request
    self.options = options
    self.timeout = timeout
    self.attempt = attempt
  }

  /// Marks the header or query item `name` as carrying a credential, for a middleware that
  /// adds one under a name Courier would not recognise (`X-Client-Id`). From here on, its
  /// value is redacted in every log line, curl command, event and error description about
  /// this request — wherever the value appears, even echoed in a response body — and the
  /// header is never sent on to another origin, whether by a redirect or an absolute URL.
  ///
  /// ```swift
  /// request.urlRequest.setValue(clientID, forHTTPHeaderField: "X-Client-Id")
  /// request.markCredential("X-Client-Id")
  /// ```
  public mutating func markCredential(_ name: String) {
    credentialNames.insert(name.lowercased())
    markedNames.insert(name.lowercased())
  }

  /// The credential rules of this request, with the request as it stands.
  var credentials: Credentials { credentials(sending: urlRequest) }

  /// The credential rules of this request, with `head` as it is sent (and its body).
  func credentials(sending head: URLRequest) -> Credentials {
    Credentials(
      names: credentialNames, request: head, held: heldCredentials,
      body: Credentials.readable(body))
  }

  /// The method.
  public var method: HTTPMethod { HTTPMethod(rawValue: urlRequest.httpMethod ?? "GET") }

  /// The URL.
  public var url: URL? { urlRequest.url }

  /// Whether the request goes to the client's own origin (scheme, host and port): where
  /// credentials may be sent. True outside a client.
  public var isToClientOrigin: Bool {
    guard let clientBaseURL else { return true }
    return URLOrigin.same(clientBaseURL, url)
  }

  /// The headers; setting one replaces every field of that name in the request. Repeated
  /// fields go as one, their values joined by commas (several `Cookie` fields by `"; "`).
  public var headers: HTTPHeaders {
    get {
      let fields = (urlRequest.allHTTPHeaderFields ?? [:]).map {
        HTTPHeaders.Field(name: $0.key, value: $0.value)
      }
      return HTTPHeaders(fields.sorted { $0.name.lowercased() < $1.name.lowercased() })
    }
    set {
      var newValue = newValue
      newValue.joinCookieFields()
      for name in (urlRequest.allHTTPHeaderFields ?? [:]).keys where !newValue.contains(name) {
        urlRequest.setValue(nil, forHTTPHeaderField: name)
      }
      var written: Set<String> = []
      for field in newValue where written.insert(field.name.lowercased()).inserted {
        let value = newValue.values(for: field.name).joined(separator: ", ")
        urlRequest.setValue(value, forHTTPHeaderField: field.name)
      }
    }
  }
}

/// Per-endpoint switches that middleware and the request builder read: an endpoint that must
/// not be retried, must not carry credentials, or must avoid some networks. Define your own
/// with bits from 16 up.
///
/// ```swift
/// var options: RequestOptions { [.noRetry, .noAuthentication] }
/// ```
public struct RequestOptions: OptionSet, Sendable, Hashable {
  /// The bits.
  public let rawValue: UInt64

  /// Creates options from bits.
  public init(rawValue: UInt64) {
    self.rawValue = rawValue
  }

  /// ``RetryPolicy`` never retries this request.
  public static let noRetry = RequestOptions(rawValue: 1 << 0)
  /// Authentication middleware leaves this request without credentials.
  public static let noAuthentication = RequestOptions(rawValue: 1 << 1)
  /// Never over a cellular interface (`URLRequest.allowsCellularAccess`).
  public static let noCellular = RequestOptions(rawValue: 1 << 2)
  /// Never over an expensive network — cellular, a personal hotspot — as the system judges
  /// it (`URLRequest.allowsExpensiveNetworkAccess`). Apple platforms only; Linux ignores it.
  public static let noExpensiveNetwork = RequestOptions(rawValue: 1 << 3)
  /// Never over a constrained network, one in Low Data Mode
  /// (`URLRequest.allowsConstrainedNetworkAccess`). Apple platforms only; Linux ignores it.
  public static let noConstrainedNetwork = RequestOptions(rawValue: 1 << 4)
}
