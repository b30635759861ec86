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
    let firstByte = try #require(timings.firstByte)
    #expect(firstByte <= timings.total)
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
    let seen = Locked(0)
    let options = TransportOptions()
    #expect(options.timings == nil)
    let transport = URLSessionTransport()
    var measuring = TransportOptions()
    measuring.timings = { _ in seen.withLock { $0 += 1 } }
    let url = server.baseURL.appendingPathComponent("x")
    _ = try await transport.send(URLRequest(url: url), options: options)
    #expect(seen.withLock { $0 } == 0)
    _ = try await transport.send(URLRequest(url: url), options: measuring)
    #expect(seen.withLock { $0 } == 1)
  }
}
