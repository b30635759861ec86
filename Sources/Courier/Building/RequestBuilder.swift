import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Turns an endpoint into the exact request to send: the head as a `URLRequest` and the
/// body apart. Pure and synchronous: everything it needs is in the base URL and the
/// configuration.
struct RequestBuilder: Sendable {
  let baseURL: URL
  let configuration: HTTPClient.Configuration
  /// `baseURL` split once, not for every request.
  private let base: URLBuilder.Base
  /// `baseURL`'s origin, worked out once.
  private let baseOrigin: URLOrigin?
  /// The client's extra credential names, lowercased once.
  private let redactedNames: Set<String>

  init(baseURL: URL, configuration: HTTPClient.Configuration) {
    self.baseURL = baseURL
    self.configuration = configuration
    base = URLBuilder.Base(baseURL)
    baseOrigin = URLOrigin(baseURL)
    redactedNames = Set(configuration.redactedNames.map { $0.lowercased() })
  }

  func request<E: Endpoint>(for endpoint: E) throws(HTTPError) -> TransportRequest {
    let method = endpoint.method
    guard !method.rawValue.isEmpty, method.rawValue.utf8.allSatisfy(HeaderValidation.isTokenByte)
    else {
      throw .invalidRequest(reason: "the method '\(method.rawValue)' is not a valid HTTP token")
    }
    try Self.refuseNonFinite(endpoint.query, in: "query")
    let query = configuration.queryEncoding.encode(endpoint.query)
    let url = try URLBuilder.url(
      base: base, path: endpoint.path, query: query, redacting: redactedNames)

    // Precedence, lowest first: the client's defaults, the body's Content-Type, the
    // endpoint's own headers. Default credentials go only to the base URL's origin.
    var headers = configuration.headers
    if baseOrigin == nil || URLOrigin(url) != baseOrigin {  // URLOrigin.same(url, baseURL)
      let credentials = Credentials(names: redactedNames)
      for field in configuration.headers where credentials.isCredential(field.name) {
        headers.remove(field.name)
      }
    }
    var bodySource: TransportRequestBody?
    if let body = endpoint.body {
      guard method != .get && method != .head else {
        throw .invalidRequest(
          reason: "a \(method.rawValue) request cannot carry a body (URLSession refuses it); "
            + "send the data as query items, or use POST")
      }
      bodySource = try body.encoded(
        encoder: configuration.encoder, queryEncoding: configuration.queryEncoding)
      headers["Content-Type"] = body.contentType
    }
    headers = headers.merging(endpoint.headers)
    try Self.removeFraming(from: &headers, body: bodySource)
    if !headers.contains("Accept"),
      let accept = ResponseDecoding.acceptedMediaType(for: E.Response.self)
    {
      headers.add("Accept", accept)
    }
    headers.trimValues()
    headers.joinCookieFields()
    try HeaderValidation.validate(headers)

    var request = URLRequest(url: url)
    if method != .get {
      // A URLRequest's method is GET already; setting it costs ~4,000 instructions.
      request.httpMethod = method.rawValue
    }
    request.setHeaders(headers)
    request.apply(endpoint.options)
    if let bodySource, bodySource.data == nil, let length = bodySource.length {
      request.setValue(String(length), forHTTPHeaderField: "Content-Length")
    }
    if let timeout = endpoint.timeout ?? configuration.timeout {
      request.timeoutInterval = Self.transportTimeout(for: timeout)
    }
    return TransportRequest(head: request, body: bodySource)
  }

  /// Refuses a query or form whose items hold a number that is not finite (NaN, infinity):
  /// none has a decimal form a server reads back as a number.
  static func refuseNonFinite(_ query: Query, in place: String) throws(HTTPError) {
    guard let name = query.nonFiniteName else { return }
    throw .invalidRequest(
      reason: "the \(place) item '\(name)' is not a finite number (NaN or infinity), which no "
        + "server reads back as a number")
  }

  /// The request as one `URLRequest`, for inspection: a body in memory as `httpBody`, one
  /// from disk as an `httpBodyStream` that reads it.
  func urlRequest<E: Endpoint>(for endpoint: E) throws(HTTPError) -> URLRequest {
    let built = try request(for: endpoint)
    var request = built.head
    if let body = built.body {
      if let data = body.data {
        request.httpBody = data
      } else if let segments = body.segments {
        request.httpBodyStream = BodyInputStream(segments)
      }
    }
    return request
  }

  /// The timeout handed to URLSession as a backstop: whole seconds, never below the real
  /// deadline, because Linux truncates fractions (0.5 s fires at once) and times idleness.
  /// The client enforces the exact deadline itself. At most ``longestTransportTimeout``.
  static func transportTimeout(for timeout: Duration) -> TimeInterval {
    min(max(1, timeout.seconds.rounded(.up)), longestTransportTimeout)
  }

  /// The longest timeout handed to URLSession, about 34 years: FoundationNetworking counts it
  /// in milliseconds of an `Int`, and trapped on a longer one (a timeout of
  /// `.seconds(Int64.max)`, meant as "never", crashed the process).
  static let longestTransportTimeout = TimeInterval(1 << 30)
}
