import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@Suite("HTTPEvent")
struct HTTPEventTests {
  func client(_ events: Locked<[HTTPEvent]>, stub: StubTransport, middleware: [any Middleware] = [])
    -> HTTPClient
  {
    var configuration = HTTPClient.Configuration()
    configuration.middleware = middleware
    configuration.observer = { event in events.withLock { $0.append(event) } }
    return makeClient(transport: stub, configuration: configuration)
  }

  @Test("started then finished with status, bytes and attempts; ids count requests")
  func finished() async throws {
    let events = Locked<[HTTPEvent]>([])
    let stub = StubTransport().fallback { _ throws(HTTPError) in StubResponse(text: "12345") }
    let client = client(events, stub: stub)
    _ = try await client.send(Request<String>(path: "a", query: ["api_key": "s3cret"]))
    _ = try await client.send(Request<String>(path: "b"))
    let recorded = events.withLock { $0 }
    // Every exchange is measured, the stub's too, before the request is finished.
    #expect(recorded.count == 6)
    guard case .started(let first) = recorded[0], case .measured = recorded[1],
      case .finished(let same, let status, _, let bytes, let attempts) = recorded[2],
      case .started(let second) = recorded[3]
    else {
      Issue.record("\(recorded)")
      return
    }
    #expect(first == same && first.id == 1 && second.id == 2)
    #expect(first.url == "https://api.example.com/3/a?api_key=<redacted>")
    #expect(status == 200 && bytes == 5 && attempts == 1)
  }

  @Test("retries and failures are reported")
  func retriedAndFailed() async throws {
    let events = Locked<[HTTPEvent]>([])
    let stub = StubTransport().fallback { _ throws(HTTPError) in .status(503) }
    let retry = RetryPolicy(maximumAttempts: 2, jitter: .none, clock: RecordingClock())
    await #expect(throws: HTTPError.self) {
      try await client(events, stub: stub, middleware: [retry]).send(Request<Data>(path: "x"))
    }
    let recorded = events.withLock { $0 }
    // Each attempt is measured.
    guard recorded.count == 5, case .measured = recorded[1],
      case .retrying(_, 1, 503, nil, let wait) = recorded[2], case .measured = recorded[3],
      case .failed(_, let error, _) = recorded[4]
    else {
      Issue.record("\(recorded)")
      return
    }
    #expect(wait == .milliseconds(500))
    #expect(error.status == 503 && error.response?.attempt == 2)
  }

  @Test("an invalid request is reported as failed; makeStream delivers events")
  func invalidAndStream() async throws {
    let (stream, observer) = HTTPEvent.makeStream()
    var configuration = HTTPClient.Configuration()
    configuration.observer = observer
    let client = makeClient(configuration: configuration)
    await #expect(throws: HTTPError.self) { try await client.send(Request<Data>(path: "%zz")) }
    var iterator = stream.makeAsyncIterator()
    guard case .started(let request) = await iterator.next(),
      case .failed(_, .invalidRequest, _) = await iterator.next()
    else {
      Issue.record("expected started and failed")
      return
    }
    #expect(request.url == "(not built)")
  }
}

@Suite("HTTPEvent.waiting")
struct HTTPEventWaitingTests {
  /// A stub whose first answer waits for `release`, signalling `arrived` when it does.
  func heldStub(arrived: Signal, release: Gate) -> StubTransport {
    StubTransport().serving { request, response in
      arrived.fire()
      await release.wait()
      try await response.send(text: request.path)
    }
  }

  /// A configuration whose observer fires `signal` at the first `.waiting(_, for: reason)`.
  func observing(_ reason: HTTPEvent.Wait, _ signal: Signal, into events: Locked<[HTTPEvent]>)
    -> HTTPClient.Configuration
  {
    var configuration = HTTPClient.Configuration()
    configuration.observer = { event in
      events.withLock { $0.append(event) }
      if case .waiting(_, for: reason) = event { signal.fire() }
    }
    return configuration
  }

  @Test("a request sharing an identical one's answer says it waits for it; the first does not")
  func identicalRequest() async throws {
    let (arrived, release, waiting) = (Signal(), Gate(), Signal())
    let events = Locked<[HTTPEvent]>([])
    let client = makeClient(
      transport: heldStub(arrived: arrived, release: release),
      configuration: observing(.identicalRequest, waiting, into: events))
    let first = Task { try await client.send(Request<String>(path: "same")) }
    await watched { await arrived.wait() }
    let second = Task { try await client.send(Request<String>(path: "same")) }
    await watched { await waiting.wait() }
    release.open()
    #expect(try await first.value == "/3/same")
    #expect(try await second.value == "/3/same")
    let waits = events.withLock { $0 }.compactMap { event -> UInt64? in
      if case .waiting(let request, for: .identicalRequest) = event { return request.id }
      return nil
    }
    #expect(waits == [2])
  }

  @Test("a request held by the concurrency limit says it waits for a permit")
  func concurrencyLimit() async throws {
    let (arrived, release, waiting) = (Signal(), Gate(), Signal())
    let events = Locked<[HTTPEvent]>([])
    var configuration = observing(.concurrencyLimit, waiting, into: events)
    configuration.maximumConcurrentRequests = 1
    let client = makeClient(
      transport: heldStub(arrived: arrived, release: release), configuration: configuration)
    let first = Task { try await client.send(Request<String>(path: "one")) }
    await watched { await arrived.wait() }
    let second = Task { try await client.send(Request<String>(path: "two")) }
    await watched { await waiting.wait() }
    release.open()
    #expect(try await first.value == "/3/one")
    #expect(try await second.value == "/3/two")
    let waits = events.withLock { $0 }.filter {
      if case .waiting(_, for: .concurrencyLimit) = $0 { true } else { false }
    }
    #expect(waits.map(\.request.id) == [2])
  }
}
