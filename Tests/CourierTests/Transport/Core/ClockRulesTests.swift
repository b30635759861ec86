import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Timeout rules through the whole client, on a manual clock shared by the client and the
/// stub transport: a deadline passing during a redirect, a retry's fresh deadline. Nothing
/// waits for real time; each test moves the clock only once what it tests is waiting on it.
@Suite("TransportDeadlines through the client, on a manual clock", .timeLimit(.minutes(1)))
struct ClockRulesTests {
  let clock = ManualClock()

  func client(_ stub: StubTransport, middleware: [any Middleware] = []) -> HTTPClient {
    var configuration = HTTPClient.Configuration(
      timeout: .seconds(10), idleTimeout: nil, middleware: middleware)
    configuration.clock = clock
    return HTTPClient(
      baseURL: URL(string: "https://api.test")!, configuration: configuration, transport: stub)
  }

  /// Waits `duration` on the test's clock, as a server that takes its time.
  func takes(_ duration: Duration) async throws(HTTPError) {
    do {
      try await clock.wait(for: duration)
    } catch {
      throw .cancelled
    }
  }

  @Test("a deadline passes during a redirect: it counts from the call, not from the hop")
  func deadlineAcrossRedirect() async throws {
    let stub = StubTransport(clock: clock)
      .on(.get, "/a") { _ throws(HTTPError) in
        try await takes(.seconds(6))
        return StubResponse(status: 302, headers: ["Location": "/b"])
      }
      .on(.get, "/b") { _ throws(HTTPError) in
        try await takes(.seconds(3600))
        return StubResponse(status: 200)
      }
    let client = client(stub)
    let start = clock.now
    let call = Task { () -> (HTTPError?, ContinuousClock.Instant) in
      do throws(HTTPError) {
        _ = try await client.send(Request<Data>(path: "a"))
        return (nil, clock.now)
      } catch {
        return (error, clock.now)
      }
    }
    await clock.sleepers(atLeast: 2)  // the deadline's timer and /a
    clock.advance(by: .seconds(6))
    await clock.sleepers(atLeast: 2)  // the deadline's timer and /b
    clock.advance(by: .seconds(4))
    let (error, endedAt) = await call.value
    guard case .timedOut = error else {
      Issue.record("expected timedOut, got \(String(describing: error))")
      return
    }
    #expect(endedAt - start == .seconds(10))
    #expect(stub.requests.map { $0.url?.path } == ["/a", "/b"])
  }

  @Test("a retried request gets a deadline of its own, and waits its backoff on the clock")
  func retryDeadline() async throws {
    let attempts = Locked(0)
    let stub = StubTransport(clock: clock)
      .on(.get, "/flaky") { _ throws(HTTPError) in
        let attempt = attempts.withLock {
          $0 += 1
          return $0
        }
        // The first attempt answers 503 after 8 s of the 10 s it may take.
        guard attempt > 1 else {
          try await takes(.seconds(8))
          return StubResponse(status: 503)
        }
        return StubResponse(status: 200, text: "ok")
      }
    let clock = self.clock
    let retry = RetryPolicy(
      maximumAttempts: 2, baseDelay: .seconds(5), maximumDelay: .seconds(5),
      jitter: .none, clock: clock)
    let client = client(stub, middleware: [retry])
    let start = clock.now
    let call = Task { try await client.send(Request<String>(path: "flaky")) }
    await clock.sleepers(atLeast: 2)  // the deadline's timer and the first attempt
    clock.advance(by: .seconds(8))
    await clock.sleepers(atLeast: 2)  // the deadline's timer and the backoff
    clock.advance(by: .seconds(5))
    // 13 s after the call, past the first attempt's deadline: the second has its own.
    #expect(try await call.value == "ok")
    #expect(clock.now - start == .seconds(13))
    #expect(attempts.withLock { $0 } == 2)
  }
}
