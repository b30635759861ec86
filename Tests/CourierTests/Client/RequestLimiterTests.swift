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
    #expect(limiter.queue(forHost: "a:80")?.availablePermits == 1)
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
    #expect(limiter.queue(forHost: "b:80")?.availablePermits == 1)
    busy.release()
    #expect(limiter.availablePermits == 1)
  }
}
