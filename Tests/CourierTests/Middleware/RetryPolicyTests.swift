import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@Suite("RetryPolicy")
struct RetryPolicyTests {
  /// A stub answering each request with the next status of `statuses` (the last repeats).
  func stub(_ statuses: [Int], headers: HTTPHeaders = [:]) -> StubTransport {
    let count = Locked(0)
    return StubTransport().fallback { _ throws(HTTPError) in
      let index = count.withLock { value in
        defer { value += 1 }
        return value
      }
      return StubResponse(status: statuses[min(index, statuses.count - 1)], headers: headers)
    }
  }

  func client(_ policy: RetryPolicy, _ transport: any HTTPTransport) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [policy]
    return makeClient(transport: transport, configuration: configuration)
  }

  @Test("retries 503 until it passes, and says which attempt answered")
  func retriesUntilSuccess() async throws {
    let clock = RecordingClock()
    let transport = stub([503, 503, 200])
    let policy = RetryPolicy(maximumAttempts: 5, jitter: .none, clock: clock)
    let result = try await client(policy, transport).response(for: Request<Data>(path: "x"))
    #expect(result.response.attempt == 3)
    #expect(transport.requests.count == 3)
    #expect(clock.sleeps == [.milliseconds(500), .seconds(1)])
  }

  @Test("backoff doubles up to the cap; full jitter stays between zero and the bound")
  func backoffSchedule() async throws {
    let exact = RetryPolicy(
      baseDelay: .milliseconds(100), maximumDelay: .seconds(1), jitter: .none)
    #expect(
      (1...6).map(exact.backoff(beforeRetry:)) == [
        .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1),
        .seconds(1),
      ])
    let jittered = RetryPolicy(baseDelay: .milliseconds(100), maximumDelay: .seconds(1))
    for retry in 1...8 {
      for _ in 0..<200 {
        let wait = jittered.backoff(beforeRetry: retry)
        #expect(wait >= .zero && wait <= jittered.upperBound(beforeRetry: retry))
      }
    }
    #expect(exact.upperBound(beforeRetry: 200) == .seconds(1))  // no overflow
    let uncapped = RetryPolicy(maximumDelay: .seconds(Int64.max))
    for retry in [35, 62, 100, 1000] {
      #expect(uncapped.backoff(beforeRetry: retry) >= .zero)  // huge, but no trap
    }

    let clock = RecordingClock()
    let policy = RetryPolicy(
      maximumAttempts: 4, baseDelay: .milliseconds(100), jitter: .none, clock: clock)
    let error = await #expect(throws: HTTPError.self) {
      try await client(policy, stub([500])).send(Request<Data>(path: "x"))
    }
    #expect(error?.response?.attempt == 4)
    #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
  }

  @Test("Retry-After in seconds is waited exactly")
  func retryAfterSeconds() async throws {
    let clock = RecordingClock()
    let policy = RetryPolicy(clock: clock)
    let transport = stub([429, 200], headers: ["Retry-After": "7"])
    _ = try await client(policy, transport).send(Request<Data>(path: "x"))
    #expect(clock.sleeps == [.seconds(7)])
  }

  @Test("Retry-After as an HTTP date is waited until that date, in every date form")
  func retryAfterDate() async throws {
    // The response's own Date is the reference: the server's clock, not the device's.
    let sent = "Wed, 21 Oct 2015 07:27:40 GMT"
    for date in [
      "Wed, 21 Oct 2015 07:28:00 GMT", "Wednesday, 21-Oct-15 07:28:00 GMT",
      "Wed Oct 21 07:28:00 2015",
    ] {
      let clock = RecordingClock()
      let policy = RetryPolicy(clock: clock)
      let transport = stub([503, 200], headers: ["Retry-After": date, "Date": sent])
      _ = try await client(policy, transport).send(Request<Data>(path: "x"))
      #expect(clock.sleeps == [.seconds(20)], "\(date)")
    }
  }

  @Test("a Retry-After date with no Date beside it is measured from now: a past one waits nothing")
  func retryAfterDateWithoutDate() async throws {
    let clock = RecordingClock()
    let transport = stub([503, 200], headers: ["Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"])
    _ = try await client(RetryPolicy(clock: clock), transport).send(Request<Data>(path: "x"))
    #expect(clock.sleeps == [.zero])
  }

  @Test("a Retry-After longer than the maximum returns the response instead of waiting")
  func retryAfterTooLong() async throws {
    let clock = RecordingClock()
    let policy = RetryPolicy(maximumRetryAfter: .seconds(60), clock: clock)
    let transport = stub([503, 200], headers: ["Retry-After": "3600"])
    let error = await #expect(throws: HTTPError.self) {
      try await client(policy, transport).send(Request<Data>(path: "x"))
    }
    #expect(error?.status == 503)
    #expect(transport.requests.count == 1)
    #expect(clock.sleeps.isEmpty)
  }

  @Test("a hostile Retry-After: past Int64 is over the maximum; negative or fractional is no value")
  func retryAfterHostile() async throws {
    let clock = RecordingClock()
    let huge = stub([503, 200], headers: ["Retry-After": "99999999999999999999"])
    let error = await #expect(throws: HTTPError.self) {
      try await client(RetryPolicy(clock: clock), huge).send(Request<Data>(path: "x"))
    }
    #expect(error?.status == 503)
    #expect(clock.sleeps.isEmpty)
    for value in ["-5", "1.5", "soon", ""] {
      let clock = RecordingClock()
      let policy = RetryPolicy(jitter: .none, clock: clock)
      let transport = stub([503, 200], headers: ["Retry-After": value])
      _ = try await client(policy, transport).send(Request<Data>(path: "x"))
      #expect(clock.sleeps == [.milliseconds(500)], "Retry-After: \(value) waits the backoff")
    }
  }

  @Test("POST is not retried by default, nor an endpoint that says noRetry")
  func notRetried() async throws {
    let clock = RecordingClock()
    let policy = RetryPolicy(clock: clock)
    let post = stub([503, 200])
    await #expect(throws: HTTPError.self) {
      try await client(policy, post).send(Request<Data>(method: .post, path: "x"))
    }
    #expect(post.requests.count == 1)
    let optedOut = stub([503, 200])
    await #expect(throws: HTTPError.self) {
      try await client(policy, optedOut).send(Request<Data>(path: "x", options: .noRetry))
    }
    #expect(optedOut.requests.count == 1)
    let allowed = RetryPolicy(methods: [.post], clock: clock)
    let retriedPost = stub([503, 200])
    _ = try await client(allowed, retriedPost).send(Request<Data>(method: .post, path: "x"))
    #expect(retriedPost.requests.count == 2)
  }

  @Test("transient transport failures are retried; others, and cancellation, are not")
  func transportFailures() async throws {
    try await expectRetries(
      RetryPolicy(clock: RecordingClock()),
      [
        (HTTPError.transport(URLError(.networkConnectionLost)), true),
        (.transport(URLError(.cannotConnectToHost)), true),
        (.timedOut, true),
        (.transport(URLError(.badServerResponse)), false),
        (.transport(URLError(.notConnectedToInternet)), false),
        (.transport(URLError(.dataNotAllowed)), false),
        (.cancelled, false),
      ])
  }

  @Test("being offline is retried only when asked, and never cancellation")
  func offline() async throws {
    try await expectRetries(
      RetryPolicy(retriesOffline: true, clock: RecordingClock()),
      [
        (HTTPError.transport(URLError(.notConnectedToInternet)), true),
        (.transport(URLError(.dataNotAllowed)), true),
        (.transport(URLError(.networkConnectionLost)), true),
        (.transport(URLError(.badServerResponse)), false),
        (.cancelled, false),
      ])
  }

  /// Each error fails the first attempt; `retried` says whether a second follows.
  private func expectRetries(_ policy: RetryPolicy, _ cases: [(HTTPError, retried: Bool)])
    async throws
  {
    for (error, retried) in cases {
      let attempts = Locked(0)
      let transport = StubTransport().fallback { _ throws(HTTPError) in
        if attempts.withLock({
          $0 += 1
          return $0
        }) == 1 {
          throw error
        }
        return .status(200)
      }
      let outcome = await Result { () async throws(HTTPError) in
        try await client(policy, transport).send(Request<Data>(path: "x"))
      }
      #expect(attempts.withLock { $0 } == (retried ? 2 : 1), "\(error)")
      if case .failure(let thrown) = outcome { #expect(!retried && thrown == error) }
    }
  }

  @Test("cancellation during a backoff wait returns at once")
  func cancelDuringBackoff() async throws {
    let failed = Signal()
    let transport = StubTransport().fallback { _ throws(HTTPError) in
      failed.fire()
      return .status(503)
    }
    let policy = RetryPolicy(
      baseDelay: .seconds(3600), maximumDelay: .seconds(3600), jitter: .none)
    let client = client(policy, transport)
    let task = Task { try await client.send(Request<Data>(path: "x")) }
    await failed.wait()
    task.cancel()
    await expectCancelled(task)
    #expect(transport.requests.count == 1)
  }
}
