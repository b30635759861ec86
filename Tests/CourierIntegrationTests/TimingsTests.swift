import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Timings reach the observer from the default transport: URLSession's task metrics on Apple
/// platforms; on Linux libcurl's (CurlTransport) or, with URLSessionTransport, Courier's own
/// clock. Only order is asserted, never a duration.
@Suite("Timings in the observer's events", .timeLimit(.minutes(1)))
struct TimingsTests {
  /// A client of `server` whose events are recorded.
  private func client(
    _ server: LoopbackServer, events: Locked<[HTTPEvent]>,
    configure: (inout HTTPClient.Configuration) -> Void = { _ in }
  ) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.observer = { event in events.withLock { $0.append(event) } }
    configure(&configuration)
    return HTTPClient(baseURL: server.baseURL, configuration: configuration)
  }

  private func measured(_ events: Locked<[HTTPEvent]>) -> [HTTPTimings] {
    events.withLock { $0 }.compactMap { event in
      if case .measured(_, let timings) = event { timings } else { nil }
    }
  }

  @Test("one exchange, measured once before finished, the first byte within the total")
  func oneExchange() async throws {
    let server = try LoopbackServer { _, response in try await response.send(json: #"{"a":1}"#) }
    defer { server.stop() }
    let events = Locked<[HTTPEvent]>([])
    _ = try await client(server, events: events).send(Request<Data>(path: "x"))

    let recorded = events.withLock { $0 }
    let timings = try #require(measured(events).first)
    #expect(measured(events).count == 1)
    guard case .finished(let request, _, let duration, _, _) = recorded.last else {
      Issue.record("the last event is not finished: \(recorded)")
      return
    }
    #expect(recorded.dropLast().last.map { if case .measured = $0 { true } else { false } } == true)
    #expect(recorded.allSatisfy { $0.request == request })
    // Apple platforms deliver URLSession's metrics before the task completes, as a rule;
    // should they come late, Courier's own clock stands in, so either source is right there.
    // (CurlTransport, Linux's default, reports libcurl's.)
    #expect(
      [.courier, .libcurl].contains(timings.source)
        || URLSessionTransport.measuresWithPlatformMetrics)
    #expect(timings.total > .zero)
    #expect(timings.total <= duration)
    // The client's own clock cannot see the head of a buffered body before the body.
    if timings.source != .courier {
      let firstByte = try #require(timings.firstByte)
      #expect(firstByte <= timings.total)
    }
  }

  @Test(
    "a transport that measures nothing: the client's clock measures each exchange, a redirect's too"
  )
  func transportMeasuringNothing() async throws {
    let server = try LoopbackServer { request, response in
      if request.path == "/old" {
        try await response.send(status: 302, headers: ["Location": "/new"], text: "moved")
      } else {
        try await response.send(text: String(repeating: "x", count: 10_000))
      }
    }
    defer { server.stop() }
    let events = Locked<[HTTPEvent]>([])
    var configuration = HTTPClient.Configuration()
    configuration.observer = { event in events.withLock { $0.append(event) } }
    let client = HTTPClient(
      baseURL: server.baseURL, configuration: configuration,
      transport: MeasuringNothing(base: HTTPClient(baseURL: server.baseURL).transport))

    _ = try await client.send(Request<Data>(path: "old"))
    let buffered = measured(events)
    #expect(buffered.map(\.redirects) == [0, 1])
    #expect(buffered.allSatisfy { $0.source == .courier && $0.total > .zero })
    // A buffered answer's head comes with its body; a redirect's, which is not collected but
    // drained, before it.
    #expect(buffered.last?.firstByte == nil)
    let redirect = try #require(buffered.first)
    #expect(try #require(redirect.firstByte) <= redirect.total)

    events.withLock { $0.removeAll() }
    var count = 0
    for try await chunk in try await client.bytes(Request<Data>(path: "old")) {
      count += chunk.count
    }
    #expect(count == 10_000)
    let streamed = measured(events)
    #expect(streamed.map(\.redirects) == [0, 1])
    for timings in streamed {
      let firstByte = try #require(timings.firstByte)
      #expect(timings.source == .courier && firstByte <= timings.total)
    }
    // Measured before the request is reported finished.
    guard case .finished = events.withLock({ $0 }).last else {
      Issue.record("the last event is not finished")
      return
    }
  }

  @Test("each attempt of a retried request is measured, and a failure is too")
  func attempts() async throws {
    let server = try LoopbackServer { _, response in
      try await response.send(status: 503, text: "busy")
    }
    defer { server.stop() }
    let events = Locked<[HTTPEvent]>([])
    let client = client(server, events: events) {
      $0.middleware = [RetryPolicy(maximumAttempts: 2, clock: RecordingClock())]
    }
    await #expect(throws: HTTPError.self) { try await client.send(Request<Data>(path: "x")) }
    #expect(measured(events).count == 2)
    guard case .failed = events.withLock({ $0 }).last else {
      Issue.record("the last event is not failed")
      return
    }
  }

  @Test("no observer, nothing measured: the transport is not asked for timings")
  func noObserver() async throws {
    let server = try LoopbackServer { _, response in try await response.send(json: "{}") }
    defer { server.stop() }
    let asked = Locked<[Bool]>([])
    let base = HTTPClient(baseURL: server.baseURL).transport
    let recording = MeasuringNothing(base: base) { options in
      asked.withLock { $0.append(options.timings != nil) }
    }
    _ = try await HTTPClient(baseURL: server.baseURL, transport: recording)
      .send(Request<Data>(path: "x"))
    var configuration = HTTPClient.Configuration()
    configuration.observer = { _ in }
    _ = try await HTTPClient(
      baseURL: server.baseURL, configuration: configuration, transport: recording
    ).send(Request<Data>(path: "x"))
    #expect(asked.withLock { $0 } == [false, true])
  }
}

/// A transport of one's own that measures nothing: it passes requests to `base` without
/// Courier's timings hook, telling `seen` what it was asked.
private struct MeasuringNothing: HTTPTransport {
  let base: any HTTPTransport
  var seen: @Sendable (TransportOptions) -> Void = { _ in }

  func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
    -> TransportResponse
  {
    seen(options)
    var options = options
    options.timings = nil
    return try await base.send(request, options: options)
  }
}
