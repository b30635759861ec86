import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Retries requests that failed in a way that may pass: exponential backoff with full
/// jitter and a cap, `Retry-After` honoured, idempotent methods only by default.
///
/// ```swift
/// configuration.middleware = [RetryPolicy(maximumAttempts: 4)]
/// ```
///
/// By default a `GET`, `HEAD`, `PUT`, `DELETE` or `OPTIONS` request is retried after a 408,
/// 429, 500, 502, 503 or 504, or after a transient transport failure (connection lost,
/// cannot connect, an empty reply, a timeout) — never after cancellation, and never when
/// the endpoint says ``RequestOptions/noRetry``. Before retry *n* it waits a random time
/// between zero and `min(maximumDelay, baseDelay × 2ⁿ⁻¹)` ("full jitter"), or what the
/// response's `Retry-After` asks (seconds or an HTTP date); a `Retry-After` longer than
/// `maximumRetryAfter` ends the retries and returns that response. Every wait ends at once
/// with ``HTTPError/cancelled`` when the task is cancelled. The response says which attempt
/// answered (``HTTPResponse/attempt``). A request whose body was a one-time stream
/// (``RequestBody/stream(_:length:contentType:)``) is not sent again: its failure is thrown, or
/// its response returned, as it came.
public struct RetryPolicy: Middleware {
  /// How many attempts in all, the first included; 3 by default.
  public var maximumAttempts: Int
  /// The backoff before the first retry, doubled for each next one; 0.5 s by default.
  public var baseDelay: Duration
  /// The longest backoff; 30 s by default.
  public var maximumDelay: Duration
  /// The longest `Retry-After` honoured; 60 s by default.
  public var maximumRetryAfter: Duration
  /// The statuses that are retried.
  public var statuses: Set<Int>
  /// The methods that are retried.
  public var methods: Set<HTTPMethod>
  /// How the wait before each retry is drawn below its upper bound; ``Jitter/full`` by
  /// default.
  public var jitter: Jitter {
    // Setting it replaces a 0.1 jitter closure too.
    didSet { legacy?.jitter = nil }
  }
  /// Whether being offline is retried too: `URLError.notConnectedToInternet` and
  /// `.dataNotAllowed` (cellular data switched off), which pass only when the device gets a
  /// network back. Off by default: a request made offline fails at once, and an app shows
  /// it. URLSession reports these on Apple platforms, and `CurlTransport` (Linux) reports
  /// `notConnectedToInternet` when a host could not be found or reached while no interface
  /// but loopback is up; ``URLSessionTransport`` on Linux never reports either
  /// (FoundationNetworking says `unknown` or `cannotFindHost`), so there this changes
  /// nothing. (On Apple platforms, a session configuration with `waitsForConnectivity` waits
  /// instead of failing; see ``URLSessionTransport/defaultSessionConfiguration(maximumConnectionsPerHost:acceptsCookies:urlCache:waitsForConnectivity:)``.)
  public var retriesOffline: Bool

  /// The clock the waits between attempts run on.
  let clock: any TransportClock
  /// A 0.1 caller's own wait, jitter and date (until 1.1); `nil` for the clock's.
  var legacy: Legacy?

  /// Creates a policy; every parameter has a sensible default. The waits between attempts
  /// run on `clock`: pass a manual clock in tests to step through a backoff without
  /// waiting, and ``Jitter/none`` to make each wait its upper bound.
  public init(
    maximumAttempts: Int = 3,
    baseDelay: Duration = .milliseconds(500),
    maximumDelay: Duration = .seconds(30),
    maximumRetryAfter: Duration = .seconds(60),
    statuses: Set<Int> = [408, 429, 500, 502, 503, 504],
    methods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options],
    jitter: Jitter = .full,
    retriesOffline: Bool = false,
    clock: some Clock<Duration> = ContinuousClock()
  ) {
    self.init(
      maximumAttempts: maximumAttempts, baseDelay: baseDelay, maximumDelay: maximumDelay,
      maximumRetryAfter: maximumRetryAfter, statuses: statuses, methods: methods,
      jitter: jitter, retriesOffline: retriesOffline, clock: clock.transportClock, legacy: nil)
  }

  init(
    maximumAttempts: Int, baseDelay: Duration, maximumDelay: Duration,
    maximumRetryAfter: Duration, statuses: Set<Int>, methods: Set<HTTPMethod>, jitter: Jitter,
    retriesOffline: Bool, clock: any TransportClock, legacy: Legacy?
  ) {
    self.retriesOffline = retriesOffline
    self.maximumAttempts = maximumAttempts
    self.baseDelay = baseDelay
    self.maximumDelay = maximumDelay
    self.maximumRetryAfter = maximumRetryAfter
    self.statuses = statuses
    self.methods = methods
    self.jitter = jitter
    self.clock = clock
    self.legacy = legacy
  }

  /// Sends the request, and again after each retryable failure, up to `maximumAttempts`.
  public func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
    -> HTTPResponse
  {
    var request = request
    let mayRetry = !request.options.contains(.noRetry) && methods.contains(request.method)
    var attempt = request.attempt
    while true {
      request.attempt = attempt
      let wait: Duration
      do throws(HTTPError) {
        var response = try await next(request)
        response.attempt = attempt
        guard mayRetry, attempt < maximumAttempts, statuses.contains(response.status),
          request.isReplayable
        else {
          return response
        }
        if let asked = retryAfter(in: response) {
          guard asked <= maximumRetryAfter else { return response }
          wait = asked
        } else {
          wait = backoff(beforeRetry: attempt)
        }
        request.events?.retrying(attempt: attempt, status: response.status, error: nil, wait: wait)
      } catch {
        guard mayRetry, attempt < maximumAttempts, request.isReplayable,
          Self.isTransient(error) || (retriesOffline && Self.isOffline(error))
        else { throw error }
        wait = backoff(beforeRetry: attempt)
        request.events?.retrying(attempt: attempt, status: nil, error: error, wait: wait)
      }
      try await self.wait(wait)
      attempt += 1
    }
  }

  /// The wait before retry `retry` (from 1): jitter below `min(maximumDelay, baseDelay × 2ʳ⁻¹)`.
  public func backoff(beforeRetry retry: Int) -> Duration {
    let bound = upperBound(beforeRetry: retry)
    if let draw = legacy?.jitter { return draw(bound) }
    return jitter.draw(below: bound)
  }

  /// The upper bound of the wait before retry `retry` (from 1).
  public func upperBound(beforeRetry retry: Int) -> Duration {
    let factor = pow(2, Double(min(max(retry - 1, 0), 62)))
    let seconds = min(maximumDelay.seconds, baseDelay.seconds * factor)
    return .clampedSeconds(seconds)
  }

  /// Whether a failure may pass on its own: a lost or refused connection, an empty reply, a
  /// timeout. Never cancellation.
  public static func isTransient(_ error: HTTPError) -> Bool {
    switch error {
    case .timedOut:
      return true
    case .transport(let error):
      return [.networkConnectionLost, .cannotConnectToHost, .zeroByteResource, .timedOut]
        .contains(error.code)
    default:
      return false
    }
  }

  /// Whether a failure says the device has no network it may use: not connected to the
  /// internet, or cellular data not allowed.
  public static func isOffline(_ error: HTTPError) -> Bool {
    guard case .transport(let error) = error else { return false }
    return [.notConnectedToInternet, .dataNotAllowed].contains(error.code)
  }

  /// The wait a response's `Retry-After` asks for, if it has a valid one. A date is measured
  /// from the response's own `Date` (the server's clock, so that a skewed device clock does
  /// not stretch or cut the wait), or from now when it has none. A policy made with 0.1's
  /// initializer keeps 0.1's rule: it measures from its own `now`.
  func retryAfter(in response: HTTPResponse) -> Duration? {
    guard let value = response.headers["Retry-After"] else { return nil }
    let sent = response.headers["Date"].flatMap(HTTPDate.parse)
    // A 0.1 policy keeps 0.1's rule: its own `now`, whatever the response says.
    return RetryAfter.delay(value, now: legacy?.now() ?? sent ?? Date())
  }

  /// Waits `delay` on the clock; cancellation ends it with ``HTTPError/cancelled``.
  private func wait(_ delay: Duration) async throws(HTTPError) {
    if let sleep = legacy?.sleep { return try await sleep(delay) }
    do {
      try await clock.wait(for: delay)
    } catch {
      throw .cancelled
    }
  }
}

extension RetryPolicy {
  /// How the wait before a retry is drawn below its upper bound,
  /// `min(maximumDelay, baseDelay × 2ⁿ⁻¹)`.
  public enum Jitter: Sendable, Equatable {
    /// Uniformly random between zero and the bound ("full jitter"): clients that failed
    /// together do not come back together.
    case full
    /// The bound itself: plain exponential backoff, the same every time.
    case none

    /// A wait for this jitter below `bound`.
    func draw(below bound: Duration) -> Duration {
      switch self {
      case .full: .clampedSeconds(bound.seconds * Double.random(in: 0...1))
      case .none: bound
      }
    }
  }

  /// What 0.1's initializer took as closures (until 1.1).
  struct Legacy: Sendable {
    let sleep: @Sendable (Duration) async throws(HTTPError) -> Void
    /// `nil` once ``RetryPolicy/jitter`` has been set.
    var jitter: (@Sendable (Duration) -> Duration)?
    let now: @Sendable () -> Date
  }
}

extension Duration {
  /// The duration in seconds, as a `Double`.
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) * 1e-18
  }

  /// `seconds` as a duration, at most about 292 years (what nanoseconds in Int64 hold), at
  /// least zero: a "no cap" `maximumDelay` of `.seconds(.max)` must not trap.
  static func clampedSeconds(_ seconds: Double) -> Duration {
    guard !seconds.isNaN, seconds > 0 else { return .zero }
    return .nanoseconds(Int64(min(seconds * 1e9, 9.2e18)))
  }
}
