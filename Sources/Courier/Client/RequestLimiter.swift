/// The client's limits on requests in flight, overall and per host, served first come,
/// first served.
///
/// A request takes its host's permit before the overall one, so a request waiting for a
/// busy host never holds an overall permit that requests to other hosts could use.
final class RequestLimiter: Sendable {
  let overall: PermitQueue?
  private let perHostLimit: Int?
  private let hosts = Locked<[String: PermitQueue]>([:])
  /// What every request gets instead of a permit when a limit is below 1: no request could
  /// run within it (`nil` is the way to ask for no limit).
  private let refusal: HTTPError?

  init(maximum: Int?, maximumPerHost: Int?) {
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

  /// The queue for `host`, created on first use.
  func queue(forHost host: String) -> PermitQueue? {
    guard let perHostLimit else { return nil }
    return hosts.withLock { queues in
      if let queue = queues[host] { return queue }
      let queue = PermitQueue(limit: perHostLimit)
      queues[host] = queue
      return queue
    }
  }

  /// Takes the permits `host` needs, waiting in line for each; the caller releases them
  /// however its request ends. A task cancelled while waiting gets ``HTTPError/cancelled``
  /// and holds nothing. `whenWaiting` runs each time it has to wait in a line. With a limit
  /// below 1 it throws ``HTTPError/invalidRequest(reason:)`` at once.
  func acquire(host: String, whenWaiting: () -> Void = {}) async throws(HTTPError) -> Permits {
    if let refusal { throw refusal }
    let hostQueue = queue(forHost: host)
    if let hostQueue { try await hostQueue.acquire(whenWaiting: whenWaiting) }
    do throws(HTTPError) {
      if let overall { try await overall.acquire(whenWaiting: whenWaiting) }
    } catch {
      hostQueue?.release()
      throw error
    }
    return Permits(host: hostQueue, overall: overall)
  }

  /// The permits one request holds.
  struct Permits: Sendable {
    fileprivate let host: PermitQueue?
    fileprivate let overall: PermitQueue?

    /// Gives them back, the overall one first.
    func release() {
      overall?.release()
      host?.release()
    }
  }
}
