import Courier
import CourierTesting
import Foundation
import Testing

@Suite("ManualClock")
struct ManualClockTests {
  @Test("a RetryPolicy's backoff on a manual clock: the retry waits until the clock is moved")
  func stepsABackoff() async throws {
    let attempts = Locked(0)
    let stub = StubTransport().fallback { _ throws(HTTPError) in
      attempts.withLock { $0 += 1 }
      return attempts.withLock { $0 } == 1 ? .status(503) : StubResponse(text: "ok")
    }
    let clock = ManualClock()
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [RetryPolicy(jitter: .none, clock: clock)]
    let client = HTTPClient(
      baseURL: URL(string: "https://api.test")!, configuration: configuration, transport: stub)

    let call = Task { try await client.send(Request<String>(path: "flaky")) }
    await clock.sleepers(atLeast: 1)  // the backoff has begun
    #expect(attempts.withLock { $0 } == 1)
    clock.advance(by: .milliseconds(499))
    #expect(attempts.withLock { $0 } == 1)  // not yet: the wait is 500 ms
    clock.advance(by: .milliseconds(1))
    #expect(try await call.value == "ok")
    #expect(attempts.withLock { $0 } == 2)
  }

  @Test("a sleep before its instant is cancelled with its task; one already due returns")
  func sleepAndCancellation() async throws {
    let clock = ManualClock()
    let start = clock.now
    try await clock.sleep(until: start, tolerance: nil)  // due already: returns at once
    let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
    await clock.sleepers(atLeast: 1)
    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    clock.advance(by: .seconds(90))
    #expect(start.duration(to: clock.now) == .seconds(90))
  }
}
