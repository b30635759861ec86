/// The deadline and idle timeout of one exchange, as a value over a clock's instants: the
/// one rule Courier's transports (libcurl's, URLSession's, the stub) time requests by. It
/// reads no clock itself; its owner passes `now`, so tests drive it with any instants they
/// like. A transport of your own honours ``TransportOptions/deadline`` and
/// ``TransportOptions/idleTimeout`` as those say, with its own timer or its library's.
///
/// A transport makes one when it starts an exchange, calls ``touch(at:)`` whenever bytes
/// move, ``pause()`` and ``resume(at:)`` around waits on its caller, and ends the exchange with
/// ``HTTPError/timedOut`` once ``isOverdue(at:)``; ``due`` says when to look next.
///
/// The rules:
/// - The **deadline** is an instant: the whole exchange, head and body (and the redirects a
///   transport follows for it, which share its options), must end before it.
/// - The **idle timeout** starts when the exchange starts (the transport hands the request to
///   the network) and again whenever a byte moves either way. It therefore covers
///   connecting, sending the request, **the wait for the response head**, and every wait
///   between chunks of the body — as URLSession's `timeoutInterval` and libcurl's low-speed
///   limit do. A transfer paused because its reader has fallen behind, or because its
///   streamed request body has nothing to send yet, is not idle: the wait is the caller's
///   own, and the idle period starts again when the last pause ends.
package struct TransportDeadlines: Sendable, Equatable {
  /// When the exchange must have ended; `nil` for no deadline.
  package let deadline: ContinuousClock.Instant?
  /// How long no byte may move; `nil` for no limit.
  package let idleTimeout: Duration?
  /// When a byte last moved (or the exchange started, or its reader resumed it).
  package private(set) var lastActivity: ContinuousClock.Instant
  /// How many reasons the transfer has to wait on its caller (a full reader, a body not
  /// produced yet); while there is one, the idle clock stands still.
  private var pauses = 0

  /// The rules for an exchange that starts at `start`.
  package init(
    deadline: ContinuousClock.Instant?, idleTimeout: Duration?,
    startingAt start: ContinuousClock.Instant
  ) {
    self.deadline = deadline
    self.idleTimeout = idleTimeout
    lastActivity = start
  }

  /// Whether moving bytes must be recorded (there is an idle timeout).
  package var watchesActivity: Bool { idleTimeout != nil }

  /// A byte moved at `now`: the idle period starts again.
  package mutating func touch(at now: ContinuousClock.Instant) {
    if now > lastActivity { lastActivity = now }
  }

  /// The transfer waits on its caller from now on (one more reason): idle time does not
  /// count.
  package mutating func pause() {
    pauses += 1
  }

  /// One reason to wait on the caller ended at `now`; when it was the last, the idle period
  /// starts afresh.
  package mutating func resume(at now: ContinuousClock.Instant) {
    pauses = max(0, pauses - 1)
    touch(at: now)
  }

  /// When the idle period ends, if it runs.
  private var idleEnd: ContinuousClock.Instant? {
    guard let idleTimeout, pauses == 0 else { return nil }
    return lastActivity.advanced(by: idleTimeout)
  }

  /// The first instant at which the exchange may be overdue: the deadline or the end of the
  /// idle period, whichever is sooner; `nil` when neither runs.
  package var due: ContinuousClock.Instant? {
    switch (deadline, idleEnd) {
    case (let deadline?, let idleEnd?): min(deadline, idleEnd)
    case (let deadline?, nil): deadline
    case (nil, let idleEnd?): idleEnd
    case (nil, nil): nil
    }
  }

  /// Whether the exchange has run out of time at `now`: past its deadline, or idle for the
  /// whole idle timeout. (At the very instant either ends, it has.)
  package func isOverdue(at now: ContinuousClock.Instant) -> Bool {
    guard let due else { return false }
    return now >= due
  }
}
