import CourierTestSupport
import Testing

@testable import Courier

@Suite("RequestLimiter: the host's permit, then the overall one", .timeLimit(.minutes(1)))
struct RequestLimiterTests {
  @Test("permits taken are given back by release, the overall one and the host's")
  func acquireAndRelease() async throws {
    let limiter = RequestLimiter(maximum: 2, maximumPerHost: 1)
    let permits = try await limiter.acquire(host: "a:80")
    #expect(limiter.availablePermits == 1)
    #expect(limiter.queue(forHost: "a:80")?.availablePermits == 0)
    permits.release()
    #expect(limiter.availablePermits == 2)
    #expect(limiter.queue(forHost: "a:80") == nil && limiter.hostsInUse == 0)
  }

  /// A service that sends to many hosts over its life (webhooks to each customer's domain)
  /// under a per-host limit: the lines of hosts it no longer talks to are not kept.
  @Test("a host's line lives while a request uses it: 10,000 hosts in turn leave none behind")
  func linesForgotten() async throws {
    let limiter = RequestLimiter(maximum: nil, maximumPerHost: 2)
    var wrong: [Int] = []
    for index in 0..<10_000 {
      let first = try await limiter.acquire(host: "h\(index):80")
      let second = try await limiter.acquire(host: "h\(index):80")
      let held = limiter.queue(forHost: "h\(index):80")?.availablePermits == 0
      first.release()
      // One request still holds the host's permit: its line stays.
      if !held || limiter.hostsInUse != 1 { wrong.append(index) }
      second.release()
    }
    #expect(wrong.isEmpty, "\(wrong.prefix(3))")
    #expect(limiter.hostsInUse == 0)
  }

  @Test("10,000 requests in bursts to one host of limit 3: never more than 3 hold its permit")
  func linesKeptWhileUsed() async throws {
    let limiter = RequestLimiter(maximum: nil, maximumPerHost: 3)
    let holding = Locked((now: 0, most: 0))
    for _ in 0..<10 {
      await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<100 {
          group.addTask {
            // Each comes back for more: arrivals meet releases, and lines made anew.
            for _ in 0..<10 {
              let permits = try await limiter.acquire(host: "a:80")
              holding.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
              }
              await Task.yield()
              holding.withLock { $0.now -= 1 }
              permits.release()
            }
          }
        }
      }
      #expect(limiter.hostsInUse == 0)
    }
    #expect(holding.withLock { $0.most } == 3)
  }

  @Test("a request cancelled while it waits for the overall permit gives its host's back")
  func cancelledAfterTheHostPermit() async throws {
    let limiter = RequestLimiter(maximum: 1, maximumPerHost: 1)
    let busy = try await limiter.acquire(host: "a:80")  // holds the one overall permit
    let suspended = Signal()
    let waiting = Task {
      try await limiter.acquire(host: "b:80", whenWaiting: { suspended.fire() })
    }
    await watched { await suspended.wait() }  // holds b's permit, waits for the overall one
    #expect(limiter.queue(forHost: "b:80")?.availablePermits == 0)
    waiting.cancel()
    await expectCancelled(waiting)
    #expect(limiter.queue(forHost: "b:80") == nil && limiter.hostsInUse == 1)
    busy.release()
    #expect(limiter.availablePermits == 1)
  }
}
