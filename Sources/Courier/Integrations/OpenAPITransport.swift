#if OpenAPI
  import Foundation
  import HTTPTypes
  import OpenAPIRuntime

  /// Carries a client made by swift-openapi-generator over an ``HTTPClient`` (with the
  /// `OpenAPI` trait): a swift-openapi-runtime `ClientTransport`.
  ///
  /// ```swift
  /// let http = HTTPClient(baseURL: URL(string: "https://api.example.com/v1")!, configuration: configuration)
  /// let api = Client(serverURL: http.baseURL, transport: OpenAPITransport(client: http))
  /// let movie = try await api.getMovie(path: .init(id: 42)).ok.body.json
  /// ```
  ///
  /// Each operation is a request of the client's like any other: it goes through the
  /// client's middleware (authentication, ``RetryPolicy``, ``LoggingMiddleware``…), cookie
  /// jar, redirects, concurrency limits and observer, on the client's transport.
  ///
  /// Bodies stream both ways. A request body is sent as the generated client produces it,
  /// as ``RequestBody/stream(_:length:contentType:)`` sends one (read again for a retry when
  /// the `HTTPBody` can be iterated more than once); a response body is handed over once its
  /// head has arrived, whatever its status, read as it arrives (an `HTTPBody` iterated once,
  /// its length known from `Content-Length`). Letting go of that body, or cancelling the task
  /// reading it, cancels the request and closes its connection. A response field whose name
  /// is no HTTP token (`X-Debug[1]`), which `HTTPFields` cannot hold, is left out.
  ///
  /// Every status is an answer for the generated client, which handles the statuses the
  /// document names and returns `.undocumented` for the others: none is thrown, and none is
  /// held to the client's ``HTTPClient/Configuration/acceptableStatusCodes``. The middleware
  /// sees each answer at its head, so a ``RetryPolicy`` still retries a `503` (letting its
  /// body go) before the generated client sees the last one.
  ///
  /// Failures are thrown as ``HTTPError`` (the runtime wraps it in its `ClientError`, as
  /// `underlyingError`), their descriptions under the client's credential rule. Credentials
  /// that Courier's middleware adds never reach the generated client's request, which the
  /// runtime's `ClientError` describes with its headers: give credentials to Courier's
  /// ``BearerAuthentication`` or ``APIKeyAuthentication`` rather than to an OpenAPI
  /// middleware. Through this transport, a response is streamed, so the client's
  /// ``HTTPCache`` answers a `GET` with a fresh stored response but stores nothing (as for
  /// ``HTTPClient/bytes(_:options:)``); a successful unsafe request still invalidates what it
  /// holds for the URL.
  public struct OpenAPITransport: ClientTransport {
    /// The client that sends the requests.
    public let client: HTTPClient
    /// Limits for each request: no deadline by default, as a streamed body may rightly take
    /// hours (the idle timeout still ends a request that stops moving); no size limit for a
    /// streamed body. Set ``TransferOptions/timeout`` for a deadline.
    public var options: TransferOptions

    /// A transport sending through `client`.
    public init(client: HTTPClient, options: TransferOptions = TransferOptions()) {
      self.client = client
      self.options = options
    }

    /// Sends `request` to `baseURL` through the client: returns once the response head has
    /// arrived, with its body as it comes.
    ///
    /// - Throws: ``HTTPError``: `invalidRequest` (nothing was sent), `transport`, `timedOut`,
    ///   `cancelled` or `responseTooLarge`.
    public func send(
      _ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
      let endpoint = try endpoint(for: request, body: body, baseURL: baseURL)
      let stream = try await client.bytes(endpoint, options: options)
      let response = Self.head(stream.response)
      if request.method == .head {
        for try await _ in stream {}  // nothing: lets the exchange end as answered
        return (response, nil)
      }
      let body = HTTPBody(
        stream, length: Self.bodyLength(of: stream.response), iterationBehavior: .single)
      return (response, body)
    }

    /// The request as an endpoint of the client: the URL `baseURL` and the path make,
    /// relative to the client's base URL when it starts with it (so that a base URL of
    /// another scheme, `http+unix`, serves too), with the request's headers and body.
    func endpoint(for request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL)
      throws(HTTPError) -> Request<Data>
    {
      guard let path = request.path else {
        throw .invalidRequest(reason: "the OpenAPI request has no path")
      }
      let url = Self.trimmingSlashes(baseURL.absoluteString) + path
      var target = url
      let base = Self.trimmingSlashes(client.baseURL.absoluteString)
      if url.hasPrefix(base), url.dropFirst(base.count).first.map({ "/?".contains($0) }) ?? true {
        target = String(url.dropFirst(base.count))
      }
      var headers = HTTPHeaders()
      for field in request.headerFields {
        headers.add(field.name.rawName, field.value)
      }
      return Request(
        method: HTTPMethod(rawValue: request.method.rawValue), path: target, headers: headers,
        body: body.map { Self.requestBody($0, contentType: headers["Content-Type"]) },
        acceptableStatusCodes: Self.everyStatus)
    }

    /// `body` as a streamed request body, made afresh for each sending when it can be.
    static func requestBody(_ body: HTTPBody, contentType: String?) -> RequestBody {
      let length: Int64? =
        switch body.length {
        case .known(let length): length
        case .unknown: nil
        }
      let contentType = contentType ?? "application/octet-stream"
      switch body.iterationBehavior {
      case .multiple:
        return .stream(length: length, contentType: contentType) { body }
      case .single:
        return .stream(body, length: length, contentType: contentType)
      }
    }

    /// The response head, each header field as it came, but one whose name is not an HTTP
    /// token (RFC 9110 §5.1: `X-Debug[1]`), which `HTTPFields` cannot hold: it is left out, as
    /// a recipient may ignore a field it cannot parse, rather than failing an answer whose
    /// other fields and body are sound (every other call of the client keeps it).
    static func head(_ response: HTTPResponse) -> HTTPTypes.HTTPResponse {
      var fields = HTTPFields()
      for field in response.headers {
        guard let name = HTTPField.Name(field.name) else { continue }
        fields.append(HTTPField(name: name, value: field.value))
      }
      return HTTPTypes.HTTPResponse(
        status: HTTPTypes.HTTPResponse.Status(code: response.status), headerFields: fields)
    }

    /// Every status: each is an answer for the generated client.
    static let everyStatus = StatusCodes(100..<1000)

    /// The body's length as the runtime says it: `Content-Length` when no content coding
    /// changed it.
    private static func bodyLength(of response: HTTPResponse) -> HTTPBody.Length {
      response.announcedBodyLength().map { .known($0) } ?? .unknown
    }

    private static func trimmingSlashes(_ text: String) -> String {
      var text = Substring(text)
      while text.hasSuffix("/") { text.removeLast() }
      return String(text)
    }
  }
#endif
