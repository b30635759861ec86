import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// A transport whose every answer is a `200` with a streamed body the test writes, one
/// writer per request in the order they came.
private final class HeldTransport: HTTPTransport {
  let writers = Locked<[TransportResponseBody.Writer]>([])
  let stopped = Locked<[HTTPError]>([])
  let requests = Signal()

  func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
    -> TransportResponse
  {
    let stopped = self.stopped
    let (body, writer) = TransportResponseBody.makeStream { error in
      stopped.withLock { $0.append(error) }
    }
    writers.withLock { $0.append(writer) }
    requests.fire()
    return TransportResponse(head: HTTPResponse(status: 200, url: request.url), body: body)
  }

  func writer(_ index: Int) -> TransportResponseBody.Writer {
    writers.withLock { $0[index] }
  }
}

/// A middleware that records what came back through it (the status, and whether the body is
/// still to come: it keeps no body, which would keep its transfer going), and may change it.
private struct Watching: Middleware {
  let returned = Locked<[(status: Int, streamed: Bool)]>([])
  var change: @Sendable (inout HTTPResponse) -> Void = { _ in }

  func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
    -> HTTPResponse
  {
    var response = try await next(request)
    returned.withLock { $0.append((response.status, response.bodyStream != nil)) }
    change(&response)
    return response
  }
}

@Suite("Middleware sees a streamed response as its head arrives", .timeLimit(.minutes(1)))
struct StreamingMiddlewareTests {
  func client(_ transport: some HTTPTransport, _ middleware: [any Middleware]) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.middleware = middleware
    return makeClient(transport: transport, configuration: configuration)
  }

  @Test("the chain returns with the head, the body still to come in bodyStream")
  func headFirst() async throws {
    let transport = HeldTransport()
    let watching = Watching()
    let stream = try await client(transport, [watching]).bytes(Request<Data>(path: "feed"))
    // Nothing of the body has been written, and the middleware has its answer already.
    let seen = try #require(watching.returned.withLock { $0.first })
    #expect(seen.status == 200)
    #expect(seen.streamed)
    #expect(stream.response.bodyStream == nil)  // the caller's body is the stream itself
    try transport.writer(0).write(Data("one ".utf8))
    try transport.writer(0).write(Data("two".utf8))
    transport.writer(0).finish()
    var text = ""
    for try await chunk in stream { text += String(decoding: chunk, as: UTF8.self) }
    #expect(text == "one two")
  }

  @Test("a middleware rewrites the chunks as they are read, and its error stops the transfer")
  func rewrites() async throws {
    let transport = HeldTransport()
    var upper = Watching()
    upper.change = { response in
      response.bodyStream = response.bodyStream?.mapChunks { chunk throws(HTTPError) in
        guard chunk != Data("bad".utf8) else { throw .invalidRequest(reason: "bad") }
        return Data(String(decoding: chunk, as: UTF8.self).uppercased().utf8)
      }
    }
    let client = client(transport, [upper])
    let stream = try await client.bytes(Request<Data>(path: "feed"))
    try transport.writer(0).write(Data("quiet".utf8))
    try transport.writer(0).write(Data("bad".utf8))
    var chunks: [String] = []
    let error = await #expect(throws: HTTPError.self) {
      for try await chunk in stream { chunks.append(String(decoding: chunk, as: UTF8.self)) }
    }
    #expect(chunks == ["QUIET"])
    guard case .invalidRequest(let reason)? = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(reason == "bad")
    // The transport was told to stop, with the middleware's error.
    #expect(transport.stopped.withLock { $0.count } == 1)
  }

  @Test("a middleware answers a streamed request itself, with a body in memory")
  func answersItself() async throws {
    struct Offline: Middleware {
      func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
        -> HTTPResponse
      {
        HTTPResponse(status: 200, body: Data("line 1\nline 2\n".utf8))
      }
    }
    let stream = try await client(HeldTransport(), [Offline()]).bytes(Request<Data>(path: "x"))
    var lines: [String] = []
    for try await line in stream.lines { lines.append(line) }
    #expect(lines == ["line 1", "line 2"])
    #expect(stream.response.body.isEmpty)
  }

  @Test("a stream holds its permit until its reader lets it go half read, as a hurried user does")
  func permitHeldUntilLetGo() async throws {
    let transport = HeldTransport()
    let waited = Signal()
    var configuration = HTTPClient.Configuration()
    configuration.maximumConcurrentRequests = 1
    configuration.observer = { event in
      if case .waiting(_, .concurrencyLimit) = event { waited.fire() }
    }
    let client = makeClient(transport: transport, configuration: configuration)
    do {
      let first = try await client.bytes(Request<Data>(path: "first"))
      try transport.writer(0).write(Data("one".utf8))
      let second = Task { try await client.bytes(Request<Data>(path: "second")) }
      await watched { await waited.wait() }
      #expect(transport.writers.withLock { $0.count } == 1)  // the second waits for the permit
      for try await _ in first { break }  // half read; `first` goes at the end of the scope
      let stream = try await second.value
      transport.writer(1).finish()
      for try await _ in stream {}
    }
    #expect(transport.stopped.withLock { $0 } == [.cancelled])
  }

  @Test("the observer hears of a stream its reader let go half read as cancelled, once")
  func letGoReported() async throws {
    let transport = HeldTransport()
    let events = Locked<[String]>([])
    let ended = Signal()
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [Watching()]
    configuration.observer = { event in
      switch event {
      case .finished(_, let status, _, _, _): events.withLock { $0.append("finished \(status)") }
      case .failed(_, let error, _):
        events.withLock { $0.append(error == .cancelled ? "failed cancelled" : "failed \(error)") }
      default: return
      }
      ended.fire()
    }
    let client = makeClient(transport: transport, configuration: configuration)
    var stream: ByteStream? = try await client.bytes(Request<Data>(path: "feed"))
    try transport.writer(0).write(Data("one".utf8))
    #expect(events.withLock { $0 }.isEmpty)  // not before the body ends
    _ = stream
    stream = nil
    await watched { await ended.wait() }
    #expect(events.withLock { $0 } == ["failed cancelled"])
  }

  @Test("a retried status is let go, and the retry's stream is read")
  func retried() async throws {
    let calls = Locked(0)
    let stub = StubTransport().on(.get, "/feed") { _ throws(HTTPError) in
      let call = calls.withLock { count in
        count += 1
        return count
      }
      return call == 1 ? StubResponse(status: 503) : .chunks([Data("a".utf8), Data("b".utf8)])
    }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [RetryPolicy(maximumAttempts: 2, baseDelay: .zero, jitter: .none)]
    let stream = try await makeClient(transport: stub, configuration: configuration)
      .bytes(Request<Data>(path: "feed"))
    var body = Data()
    for try await chunk in stream { body.append(chunk) }
    #expect(body == Data("ab".utf8))
    #expect(stream.response.attempt == 2)
  }
}
