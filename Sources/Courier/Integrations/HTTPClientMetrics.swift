#if Metrics
  import Metrics

  /// Records a client's requests as swift-metrics (with the `Metrics` trait), named after
  /// OpenTelemetry's semantic conventions for HTTP clients: give it the client's events.
  ///
  /// ```swift
  /// let metrics = HTTPClientMetrics()  // MetricsSystem's factory
  /// configuration.observer = { event in metrics.record(event) }
  /// ```
  ///
  /// | Metric | Kind | What |
  /// | --- | --- | --- |
  /// | `http.client.request.duration` | `Timer` | From the call to the end of the body, retries included |
  /// | `http.client.request.body.size` | `Recorder` | The request body's bytes, when known |
  /// | `http.client.response.body.size` | `Recorder` | The response body's bytes |
  /// | `http.client.active_requests` | `Meter` | Requests in flight |
  /// | `http.client.requests` | `Counter` | Requests that ended, answered or failed |
  /// | `http.client.request.failures` | `Counter` | Requests that failed |
  /// | `http.client.cache.lookups` | `Counter` | Answers of the client's ``HTTPCache``, by `courier.cache.status` |
  ///
  /// Every metric has the dimensions `http.request.method` (`_OTHER` for a method not in
  /// ``knownMethods``), `url.scheme`, `server.address` and `server.port` (the scheme's port
  /// when the URL names none); those of a request that ended also
  /// `http.response.status_code` when there was an answer, and `error.type` when it failed:
  /// the ``HTTPError`` case, one of `invalidRequest`, `transport`, `timedOut`, `cancelled`,
  /// `unacceptableStatus`, `decodingFailed` and `responseTooLarge` (the status of an
  /// `unacceptableStatus` is in `http.response.status_code`). The cache's counter has
  /// `courier.cache.status`: `miss`, `hit`, `revalidated` or `stale`. A URL's path and query
  /// are never a dimension: they would make too many series, and may carry credentials.
  ///
  /// A request that could not be built is counted with its method alone. Metrics are made
  /// with the `factory` given when the event is recorded; backends such as swift-otel and
  /// swift-prometheus keep one series per label and dimensions.
  public struct HTTPClientMetrics: Sendable {
    /// Makes the metrics.
    public let factory: any MetricsFactory
    /// The methods reported by name; any other is reported as `_OTHER`, as OpenTelemetry asks,
    /// so that a dimension's values stay few. ``defaultKnownMethods`` by default.
    public var knownMethods: Set<HTTPMethod>

    /// The methods of RFC 9110, `PATCH` (RFC 5789) and `QUERY`: OpenTelemetry's known methods.
    public static let defaultKnownMethods: Set<HTTPMethod> = OpenTelemetryHTTP.knownMethods

    /// Creates a recorder making its metrics with `factory`: by default the one
    /// `MetricsSystem` has (bootstrapped, or bound to the task) when the recorder is created.
    public init(
      factory: any MetricsFactory = MetricsSystem.factory,
      knownMethods: Set<HTTPMethod> = HTTPClientMetrics.defaultKnownMethods
    ) {
      self.factory = factory
      self.knownMethods = knownMethods
    }

    /// Records what `event` says: a request started or ended, or the cache answered.
    public func record(_ event: HTTPEvent) {
      switch event {
      case .started(let request):
        Meter(label: Name.activeRequests, dimensions: dimensions(request), factory: factory)
          .increment()
      case .finished(let request, let status, let duration, let bytes, _):
        ended(request, status: status, error: nil, duration: duration, responseBytes: bytes)
      case .failed(let request, let error, let duration):
        ended(
          request, status: error.status, error: error, duration: duration,
          responseBytes: error.response?.body.count)
      case .cache(let request, let status):
        guard let name = status.dimensionValue else { return }
        let dimensions = dimensions(request) + [("courier.cache.status", name)]
        Counter(label: Name.cacheLookups, dimensions: dimensions, factory: factory).increment()
      case .waiting, .retrying, .measured:
        return
      }
    }

    /// Records a request that ended, with its status when it had an answer.
    private func ended(
      _ request: HTTPEventRequest, status: Int?, error: HTTPError?, duration: Duration,
      responseBytes: Int?
    ) {
      let server = dimensions(request)
      Meter(label: Name.activeRequests, dimensions: server, factory: factory).decrement()
      var outcome = server
      if let status { outcome.append(("http.response.status_code", "\(status)")) }
      if let error { outcome.append(("error.type", error.typeName)) }
      let nanoseconds =
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds
        / 1_000_000_000
      Timer(
        label: Name.requestDuration, dimensions: outcome, preferredDisplayUnit: .seconds,
        factory: factory
      ).recordNanoseconds(nanoseconds)
      Counter(label: Name.requests, dimensions: outcome, factory: factory).increment()
      if error != nil {
        Counter(label: Name.failures, dimensions: outcome, factory: factory).increment()
      }
      if let length = request.bodyLength {
        Recorder(label: Name.requestBodySize, dimensions: outcome, factory: factory)
          .record(length)
      }
      if let responseBytes {
        Recorder(label: Name.responseBodySize, dimensions: outcome, factory: factory)
          .record(responseBytes)
      }
    }

    /// The dimensions every metric of `request` has: method, scheme, host and port.
    private func dimensions(_ request: HTTPEventRequest) -> [(String, String)] {
      let method = knownMethods.contains(request.method) ? request.method.rawValue : "_OTHER"
      var dimensions = [("http.request.method", method)]
      if let scheme = request.scheme { dimensions.append(("url.scheme", scheme)) }
      if let host = request.host {
        dimensions.append(("server.address", host))
        if let port = OpenTelemetryHTTP.serverPort(scheme: request.scheme, port: request.port) {
          dimensions.append(("server.port", "\(port)"))
        }
      }
      return dimensions
    }

    /// The metrics' names.
    enum Name {
      static let requestDuration = "http.client.request.duration"
      static let requestBodySize = "http.client.request.body.size"
      static let responseBodySize = "http.client.response.body.size"
      static let activeRequests = "http.client.active_requests"
      static let requests = "http.client.requests"
      static let failures = "http.client.request.failures"
      static let cacheLookups = "http.client.cache.lookups"
    }
  }

  extension HTTPCache.Status {
    /// The value of the `courier.cache.status` dimension; `nil` when no cache was consulted.
    fileprivate var dimensionValue: String? {
      switch self {
      case .notUsed: nil
      case .miss: "miss"
      case .hit: "hit"
      case .revalidated: "revalidated"
      case .stale: "stale"
      }
    }
  }
#endif
