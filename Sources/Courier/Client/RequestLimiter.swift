import Foundation

/// The client's limits on requests in flight, overall and per host, served first come,
/// first served.
///
/// A request takes its host's permit before the overall one, so a request waiting for a
/// busy host never holds an overall permit that requests to other hosts could use. It counts
/// against the origin it is talking to: a redirect to another origin moves it there
/// (``follow(_:to:whenWaiting:)``).
final class RequestLimiter: Sendable {
  let overall: PermitQueue?
  private let perHostLimit: Int?
  /// Each origin's line and how many requests use it (hold its permit or wait for it): a
  /// line nobody uses is forgotten, so a client that talks to many hosts over its life keeps
  /// the lines of those it is talking to, not of every host it ever reached.
  private let hosts = Locked<[String: (queue: PermitQueue, users: Int)]>([:])
  /// What every request gets instead of a permit when a limit is below 1: no request could
  /// run within it (`nil` is the way to ask for no limit).
  private let refusal: HTTPError?
  /// Ends a redirect's wait for its new origin at the exchange's deadline.
  private let timer: DeadlineTimer

  /// Limits of `maximum` requests in flight and `maximumPerHost` to one origin (`nil`: none),
  /// whose waits with a deadline are timed on `clock`.
  init(maximum: Int?, maximumPerHost: Int?, clock: any TransportClock = ContinuousClock()) {
    timer = DeadlineTimer(clock: clock)
    overall = maximum.map { PermitQueue(limit: $0) }
    perHostLimit = maximumPerHost
    if let maximum, maximum < 1 {
      refusal = .invalidRequest(
        reason: "maximumConcurrentRequests is \(maximum); it must be at least 1 (nil for none)")
    } else if let maximumPerHost, maximumPerHost < 1 {
      refusal = .invalidRequest(
        reason: "maximumConcurrentRequestsPerHost is \(maximumPerHost); it must be at least 1 "
          + "(nil for none)")
    } else {
      refusal = nil
    }
  }

  /// Whether any limit applies.
  var isLimiting: Bool { overall != nil || perHostLimit != nil }

  /// Permits free overall right now, or `nil` without an overall limit.
  var availablePermits: Int? { overall?.availablePermits }

  /// The line of `host` while a request uses it (tests).
  func queue(forHost host: String) -> PermitQueue? {
    hosts.withLock { $0[host]?.queue }
  }

  /// The number of hosts whose lines are in use (tests).
  var hostsInUse: Int { hosts.withLock { $0.count } }

  /// Joins the users of `host`'s line, made on first use.
  private func checkOut(_ host: String, limit: Int) -> PermitQueue {
    hosts.withLock { lines in
      if let line = lines[host] {
        lines[host]?.users += 1
        return line.queue
      }
      let queue = PermitQueue(limit: limit)
      lines[host] = (queue, 1)
      return queue
    }
  }

  /// Leaves the users of `host`'s line; the last one forgets it.
  fileprivate func checkIn(_ host: String) {
    hosts.withLock { lines in
      guard let users = lines[host]?.users else { return }
      if users <= 1 { lines[host] = nil } else { lines[host]?.users = users - 1 }
    }
  }

  /// Takes the permits `host` needs, waiting in line for each; the caller releases them
  /// however its request ends. A task cancelled while waiting gets ``HTTPError/cancelled``,
  /// and one still waiting at `deadline` ``HTTPError/timedOut``; either holds nothing.
  /// `whenWaiting` runs each time it has to wait in a line. With a limit below 1 it throws
  /// ``HTTPError/invalidRequest(reason:)`` at once.
  func acquire(
    host: String, until deadline: ContinuousClock.Instant? = nil, whenWaiting: () -> Void = {}
  ) async throws(HTTPError) -> Permits {
    if let refusal { throw refusal }
    let hostQueue = perHostLimit.map { checkOut(host, limit: $0) }
    do throws(HTTPError) {
      if let hostQueue {
        try await hostQueue.acquire(until: deadline, on: timer, whenWaiting: whenWaiting)
      }
    } catch {
      checkIn(host)
      throw error
    }
    let permits = Permits(
      origin: host, host: hostQueue, overall: overall, lines: hostQueue == nil ? nil : self)
    do throws(HTTPError) {
      if let overall {
        try await overall.acquire(until: deadline, on: timer, whenWaiting: whenWaiting)
      }
    } catch {
      permits.release(overall: false)
      throw error
    }
    return permits
  }

  /// Moves `permits` to the origin of `url`, a redirect's next hop, when a per-host limit
  /// applies and the origin is another: what is held is given back, and the request waits
  /// its turn for the new origin as a new request would, until the exchange's `deadline`
  /// (then ``HTTPError/timedOut``). Both permits go back, the overall one too: waiting for a
  /// host while holding an overall permit could wait for ever on a request that holds the
  /// host's and waits for an overall one. On a throw, `permits` is `nil` and nothing is held.
  func follow(
    _ permits: inout Permits?, to url: URL?, until deadline: ContinuousClock.Instant?,
    whenWaiting: () -> Void = {}
  ) async throws(HTTPError) {
    guard perHostLimit != nil, let held = permits else { return }
    let origin = URLOrigin(url)?.description ?? ""
    guard origin != held.origin else { return }
    held.release()
    permits = nil
    permits = try await acquire(host: origin, until: deadline, whenWaiting: whenWaiting)
  }

  /// The permits one request holds.
  struct Permits: Sendable {
    /// The origin whose permit it holds (as ``URLOrigin`` describes it).
    fileprivate let origin: String
    fileprivate let host: PermitQueue?
    fileprivate let overall: PermitQueue?
    /// The limiter whose line `host` is, to leave its users.
    fileprivate let lines: RequestLimiter?

    /// Gives them back, the overall one first.
    func release() {
      release(overall: true)
    }

    fileprivate func release(overall: Bool) {
      if overall { self.overall?.release() }
      host?.release()
      lines?.checkIn(origin)
    }
  }
}
