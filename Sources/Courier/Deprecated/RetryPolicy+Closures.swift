// RetryPolicy's test hooks of 0.1 (closures for sleeping, jitter and the date), replaced in 1.0
// by a clock value and a `Jitter`; kept deprecated for one minor version (they go in 1.1).

import Foundation

extension RetryPolicy {
  /// 0.1's initializer, which took the wait, the jitter and the date as closures. Every 0.1
  /// call compiles; one that passes none of the closures is the 1.0 initializer's (this one is
  /// the disfavoured overload).
  @available(*, deprecated, message: "pass clock: (a manual clock in tests) and jitter: .none")
  @_disfavoredOverload
  public init(
    maximumAttempts: Int = 3,
    baseDelay: Duration = .milliseconds(500),
    maximumDelay: Duration = .seconds(30),
    maximumRetryAfter: Duration = .seconds(60),
    statuses: Set<Int> = [408, 429, 500, 502, 503, 504],
    methods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options],
    sleep: @escaping @Sendable (Duration) async throws(HTTPError) -> Void = RetryPolicy.taskSleep,
    jitter: @escaping @Sendable (Duration) -> Duration = RetryPolicy.fullJitter,
    now: @escaping @Sendable () -> Date = { Date() },
    retriesOffline: Bool = false
  ) {
    self.init(
      maximumAttempts: maximumAttempts, baseDelay: baseDelay, maximumDelay: maximumDelay,
      maximumRetryAfter: maximumRetryAfter, statuses: statuses, methods: methods, jitter: .full,
      retriesOffline: retriesOffline, clock: ContinuousClock(),
      legacy: Legacy(sleep: sleep, jitter: jitter, now: now))
  }

  /// 0.1's default wait: `Task.sleep`, with cancellation as ``HTTPError/cancelled``.
  @available(*, deprecated, message: "RetryPolicy waits on its clock: pass clock:")
  public static let taskSleep: @Sendable (Duration) async throws(HTTPError) -> Void = {
    (delay: Duration) async throws(HTTPError) in
    do {
      try await Task.sleep(for: delay)
    } catch {
      throw HTTPError.cancelled
    }
  }

  /// 0.1's default jitter: a uniformly random wait between zero and the bound.
  @available(*, deprecated, renamed: "Jitter.full")
  public static let fullJitter: @Sendable (Duration) -> Duration = { bound in
    Jitter.full.draw(below: bound)
  }
}
