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

  @Test("the timeout starts once a request holds its permits, not while it waits for one")
  func deadlineAfterPermit() async throws {
    let stub = StubTransport(clock: clock)
      .on(.get, "/first") { _ throws(HTTPError) in
        try await takes(.seconds(8))
        return StubResponse(status: 200, text: "first")
      }
      .on(.get, "/second") { _ throws(HTTPError) in
        try await takes(.seconds(6))
        return StubResponse(status: 200, text: "second")
      }
    let (events, observer) = HTTPEvent.makeStream()
    var configuration = HTTPClient.Configuration(
      timeout: .seconds(10), idleTimeout: nil, maximumConcurrentRequests: 1)
    configuration.observer = observer
    configuration.clock = clock
    let client = HTTPClient(
      baseURL: URL(string: "https://api.test")!, configuration: configuration, transport: stub)
    let start = clock.now
    let first = Task { try await client.send(Request<String>(path: "first")) }
    await clock.sleepers(atLeast: 2)  // the first request's deadline and its 8 s
    let second = Task { try await client.send(Request<String>(path: "second")) }
    for await event in events {
      if case .waiting(_, for: .concurrencyLimit) = event { break }  // the second queues
    }
    clock.advance(by: .seconds(8))
    #expect(try await first.value == "first")
    // The second holds the permit from 8 s, and is sent: its answer comes at 14 s, past 10 s
    // from its call but within 10 s of its permit.
    await clock.sleepers(atLeast: 1, until: start + .seconds(14))
    clock.advance(by: .seconds(3))  // 11 s: past 10 s from its call
    // Still waiting for its answer, with its deadline's timer set for 18 s.
    await clock.sleepers(atLeast: 2, until: start + .seconds(14))
    clock.advance(by: .seconds(3))
    #expect(try await second.value == "second")
    #expect(clock.now - start == .seconds(14))  // 14 s after its call, within its 10 s
  }

  /// A client with a limit of 1 per host and a 10 s timeout, one request holding
  /// other.test's permit for an hour, and one whose redirect to other.test waits in line for
  /// it (returned once it does).
  func redirectIntoBusyHost() async -> (
    client: HTTPClient, holder: Task<String, any Error>, redirected: Task<String, any Error>
  ) {
    let stub = StubTransport(clock: clock)
      .on(.get, "/hold") { _ throws(HTTPError) in
        try await takes(.seconds(3600))
        return StubResponse(status: 200, text: "held")
      }
      .on(.get, "/a") { _ throws(HTTPError) in
        StubResponse(status: 302, headers: ["Location": "https://other.test/b"])
      }
    let (events, observer) = HTTPEvent.makeStream()
    var configuration = HTTPClient.Configuration(
      timeout: .seconds(10), idleTimeout: nil, maximumConcurrentRequestsPerHost: 1)
    configuration.observer = observer
    configuration.clock = clock
    let client = HTTPClient(
      baseURL: URL(string: "https://api.test")!, configuration: configuration, transport: stub)
    let holder = Task {
      try await client.send(
        Request<String>(path: "https://other.test/hold", timeout: .seconds(7200)))
    }
    await clock.sleepers(atLeast: 2)  // the holder's deadline and its hour
    let redirected = Task { try await client.send(Request<String>(path: "a")) }
    for await event in events {
      if case .waiting(let request, for: .concurrencyLimit) = event,
        request.url.hasSuffix("/a")
      {
        break
      }
    }
    return (client, holder, redirected)
  }

  /// A redirect to a busy host waits for that host's permit with its deadline running (see
  /// `maximumConcurrentRequestsPerHost`): the wait ends with timedOut when the deadline
  /// passes, holding nothing, not when the host is free again.
  @Test("a redirect waiting for a busy host's permit times out at its deadline")
  func redirectWaitBounded() async throws {
    let start = clock.now
    let (client, holder, redirected) = await redirectIntoBusyHost()
    // The wait's deadline is in the limiter's timer; if its sleeper comes after this advance,
    // it finds the instant past and fires at once.
    clock.advance(by: .seconds(10))
    let outcome = await watched { await redirected.result }
    #expect(throws: HTTPError.timedOut) { try outcome?.get() }
    #expect(clock.now - start == .seconds(10))
    #expect(client.limiter.hostsInUse == 1)  // the holder's host only
    holder.cancel()
    _ = await holder.result
    #expect(client.limiter.hostsInUse == 0)
  }

  /// A hurried user cancels the task while its redirect waits for the busy host: it ends at
  /// once with cancelled, holding nothing, and the host's line goes once the holder is done.
  @Test("a redirect cancelled while it waits for a busy host's permit leaves at once")
  func redirectWaitCancelled() async throws {
    let (client, holder, redirected) = await redirectIntoBusyHost()
    redirected.cancel()
    let outcome = await watched { await redirected.result }
    #expect(throws: HTTPError.cancelled) { try outcome?.get() }
    #expect(client.limiter.hostsInUse == 1)  // the holder's host only
    holder.cancel()
    _ = await holder.result
    #expect(client.limiter.hostsInUse == 0)
  }

  /// A middleware that takes 20 s of the test's clock before passing a request on: an auth
  /// middleware fetching a token, say.
  struct SlowBeforeSending: Middleware {
    let clock: ManualClock
    func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
      -> HTTPResponse
    {
      do {
        try await clock.wait(for: .seconds(20))
      } catch {
        throw .cancelled
      }
      return try await next(request)
    }
  }

  /// What the timeout's docs say: it starts once the request has passed the middleware and
  /// holds its permits. Time a middleware takes before passing it on is not counted, as a
  /// ``RetryPolicy``'s backoff is not; a request's own wait for its answer is.
  @Test(
    "a middleware's time before passing the request on does not count; the answer's wait does",
    arguments: [false, true])
  func middlewareTimeNotCounted(serverSlow: Bool) async throws {
    let slow = serverSlow
    let stub = StubTransport(clock: clock)
      .on(.get, "/a") { _ throws(HTTPError) in
        if slow { try await takes(.seconds(11)) }
        return StubResponse(status: 200, text: "ok")
      }
    let client = client(stub, middleware: [SlowBeforeSending(clock: clock)])
    let start = clock.now
    let call = Task { try await client.send(Request<String>(path: "a")) }
    await clock.sleepers(atLeast: 1)  // the middleware's 20 s
    clock.advance(by: .seconds(20))
    if slow {
      await clock.sleepers(atLeast: 2)  // the deadline's timer and the server's 11 s
      clock.advance(by: .seconds(10))
      let outcome = await watched { await call.result }
      #expect(throws: HTTPError.timedOut) { try outcome?.get() }
      #expect(clock.now - start == .seconds(30))  // 10 s after it left the middleware
    } else {
      #expect(try await call.value == "ok")  // 20 s after the call, with a 10 s timeout
    }
  }
}
