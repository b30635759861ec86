import Foundation

/// What happened to a request, for metrics and tracing: published to the observer in
/// `HTTPClient.Configuration.observer`, and costing nothing when there is none.
///
/// ```swift
/// let (events, observer) = HTTPEvent.makeStream()
/// configuration.observer = observer
/// Task { for await event in events { metrics.record(event) } }
/// ```
public enum HTTPEvent: Sendable {
  /// The request is about to go out (before middleware).
  case started(HTTPEventRequest)
  /// The request waits, after middleware and before the transport: for the answer of an
  /// identical request already in flight, which it will share, or for a permit of the
  /// client's concurrency limits. (Reported only when it has to wait.)
  case waiting(HTTPEventRequest, for: Wait)
  /// ``RetryPolicy`` will retry after `wait`; `attempt` is the attempt that failed, with
  /// its status or error.
  case retrying(HTTPEventRequest, attempt: Int, status: Int?, error: HTTPError?, wait: Duration)
  /// One exchange with the server was measured (over any transport): each attempt, and each
  /// redirect followed, is one. Published when the exchange ends, before
  /// ``finished(_:status:duration:bytes:attempts:)`` or ``failed(_:error:duration:)``; a
  /// request answered by an identical one in flight has none of its own.
  case measured(HTTPEventRequest, HTTPTimings)
  /// The client's ``HTTPCache`` answered (a ``HTTPCache/Status/hit``, a
  /// ``HTTPCache/Status/revalidated`` or ``HTTPCache/Status/stale`` stored response) or
  /// missed: published once per attempt the cache was consulted for, before
  /// ``finished(_:status:duration:bytes:attempts:)``.
  case cache(HTTPEventRequest, HTTPCache.Status)
  /// A response arrived and was accepted and decoded.
  case finished(
    HTTPEventRequest, status: Int, duration: Duration, bytes: Int, attempts: Int)
  /// The request failed.
  case failed(HTTPEventRequest, error: HTTPError, duration: Duration)

  /// The request the event is about.
  public var request: HTTPEventRequest {
    switch self {
    case .started(let request), .waiting(let request, _), .retrying(let request, _, _, _, _),
      .measured(let request, _), .cache(let request, _),
      .finished(let request, _, _, _, _), .failed(let request, _, _):
      request
    }
  }

  /// What a request waits for before it reaches the transport.
  public enum Wait: Sendable, Equatable {
    /// An identical `GET` or `HEAD` already in flight, whose answer it shares
    /// (``HTTPClient/Configuration/coalescesRequests``).
    case identicalRequest
    /// A permit of ``HTTPClient/Configuration/maximumConcurrentRequests`` or
    /// ``HTTPClient/Configuration/maximumConcurrentRequestsPerHost``.
    case concurrencyLimit
  }

  /// A stream of events and the observer that feeds it, keeping the newest `limit` events
  /// when the reader falls behind.
  public static func makeStream(bufferingNewest limit: Int = 1000)
    -> (stream: AsyncStream<HTTPEvent>, observer: @Sendable (HTTPEvent) -> Void)
  {
    let (stream, continuation) = AsyncStream<HTTPEvent>.makeStream(
      bufferingPolicy: .bufferingNewest(limit))
    return (stream, { continuation.yield($0) })
  }
}

/// Which request an event is about.
public struct HTTPEventRequest: Sendable, Equatable {
  /// Counts the client's requests from 1; the same for every event of one request.
  public var id: UInt64
  /// The method.
  public var method: HTTPMethod
  /// The URL, with credential query items redacted.
  public var url: String
  /// The URL's scheme, host and port (`nil` when it names none), for the `Metrics` trait's
  /// dimensions, which never take a path or a query; all `nil` when the URL was not built.
  var scheme: String?
  var host: String?
  var port: Int?
  /// The length of the request's body as built, when it is known.
  var bodyLength: Int64?
}

/// Publishes one request's events to the client's observer.
struct EventReporter: Sendable {
  let observer: @Sendable (HTTPEvent) -> Void
  let request: HTTPEventRequest
  /// The client's credential rules, applied to errors before they are published.
  let credentials: Credentials
  let start = ContinuousClock.now

  /// The reporter of request number `id` to `url` (`nil` when it could not be built, which
  /// the event shows as `(not built)`), with credential query items redacted, whose body has
  /// `bodyLength` bytes when that is known.
  init(
    observer: @escaping @Sendable (HTTPEvent) -> Void, id: UInt64, method: HTTPMethod, url: URL?,
    bodyLength: Int64? = nil, credentials: Credentials
  ) {
    self.observer = observer
    self.credentials = credentials
    let shown = url.map { credentials.describe($0) } ?? "(not built)"
    request = HTTPEventRequest(
      id: id, method: method, url: shown, scheme: url?.scheme, host: url?.host, port: url?.port,
      bodyLength: bodyLength)
  }

  func started() {
    observer(.started(request))
  }

  func waiting(for reason: HTTPEvent.Wait) {
    observer(.waiting(request, for: reason))
  }

  func measured(_ timings: HTTPTimings) {
    observer(.measured(request, timings))
  }

  func cache(_ status: HTTPCache.Status) {
    observer(.cache(request, status))
  }

  func retrying(attempt: Int, status: Int?, error: HTTPError?, wait: Duration) {
    let error = error.map { credentials.applied(to: $0) }
    observer(.retrying(request, attempt: attempt, status: status, error: error, wait: wait))
  }

  /// The request ended with `response`, whose body had `bytes` bytes (in memory, in a
  /// file or streamed).
  func finished(_ response: HTTPResponse, bytes: Int) {
    observer(
      .finished(
        request, status: response.status, duration: ContinuousClock.now - start,
        bytes: bytes, attempts: response.attempt))
  }

  /// The request failed with `error`, which the pipeline has redacted already (it is the
  /// error the caller gets).
  func failed(_ error: HTTPError) {
    observer(.failed(request, error: error, duration: ContinuousClock.now - start))
  }
}
