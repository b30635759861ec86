import Courier
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
    #expect(recorded.count == 4)
    guard case .started(let first) = recorded[0],
      case .finished(let same, let status, _, let bytes, let attempts) = recorded[1],
      case .started(let second) = recorded[2]
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
    let retry = RetryPolicy(maximumAttempts: 2, sleep: { _ throws(HTTPError) in }, jitter: { $0 })
    await #expect(throws: HTTPError.self) {
      try await client(events, stub: stub, middleware: [retry]).send(Request<Data>(path: "x"))
    }
    let recorded = events.withLock { $0 }
    guard recorded.count == 3, case .retrying(_, 1, 503, nil, let wait) = recorded[1],
      case .failed(_, let error, _) = recorded[2]
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
