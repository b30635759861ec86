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
    return Permits(origin: host, host: hostQueue, overall: overall)
  }

  /// Moves `permits` to the origin of `url`, a redirect's next hop, when a per-host limit
  /// applies and the origin is another: what is held is given back, and the request waits
  /// its turn for the new origin as a new request would. Both permits go back, the overall
  /// one too: waiting for a host while holding an overall permit could wait for ever on a
  /// request that holds the host's and waits for an overall one. On a throw (cancelled while
  /// waiting), `permits` is `nil` and nothing is held.
  func follow(_ permits: inout Permits?, to url: URL?, whenWaiting: () -> Void = {})
    async throws(HTTPError)
  {
    guard perHostLimit != nil, let held = permits else { return }
    let origin = URLOrigin(url)?.description ?? ""
    guard origin != held.origin else { return }
    held.release()
    permits = nil
    permits = try await acquire(host: origin, whenWaiting: whenWaiting)
  }

  /// The permits one request holds.
  struct Permits: Sendable {
    /// The origin whose permit it holds (as ``URLOrigin`` describes it).
    fileprivate let origin: String
    fileprivate let host: PermitQueue?
    fileprivate let overall: PermitQueue?

    /// Gives them back, the overall one first.
    func release() {
      overall?.release()
      host?.release()
    }
  }
}
