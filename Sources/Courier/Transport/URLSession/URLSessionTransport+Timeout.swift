import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension URLSessionTransport {
  /// `head` with URLSession's own timeout raised to outlast the exchange's rules, which
  /// Courier enforces itself (``TransportDeadlines``): URLSession ends a task after
  /// `timeoutInterval` seconds without a byte, on every platform, and a request built for a
  /// byte stream or a download carries the client's `timeout` there, which those are not
  /// bound by. It is raised to the shorter of the idle timeout and the time left before the
  /// deadline, in whole seconds rounded up (Linux truncates fractions), so that it never
  /// ends an exchange those would not have; an exchange with neither has no limit, and gets
  /// the longest timeout URLSession takes (``RequestBuilder/longestTransportTimeout``), not
  /// the request's (the client's `timeout`, which does not bound a stream, or URLSession's
  /// default of 60 seconds).
  static func sessionTimeout(
    of head: URLRequest, options: TransportOptions, now: ContinuousClock.Instant
  ) -> TimeInterval {
    let limits = [options.idleTimeout, options.deadline.map { now.duration(to: $0) }]
    guard let shortest = limits.compactMap({ $0 }).min() else {
      return RequestBuilder.longestTransportTimeout
    }
    return max(head.timeoutInterval, RequestBuilder.transportTimeout(for: shortest))
  }
}
