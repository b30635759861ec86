import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `RequestBody.stream`: what the client sends, and who may send it again.
@Suite("Streamed request bodies")
struct StreamedRequestBodyTests {
  /// The chunks `["a", "bb", "ccc"]` as a one-time sequence.
  func chunks() -> AsyncStream<[UInt8]> {
    AsyncStream { continuation in
      for piece in ["a", "bb", "ccc"] { continuation.yield(Array(piece.utf8)) }
      continuation.finish()
    }
  }

  /// A stub answering with `statuses` in turn (the last repeats), recording bodies.
  func stub(_ statuses: [Int]) -> StubTransport {
    let count = Locked(0)
    return StubTransport().fallback { _ throws(HTTPError) in
      let index = count.withLock { value in
        defer { value += 1 }
        return value
      }
      return StubResponse(status: statuses[min(index, statuses.count - 1)], text: "ok")
    }
  }

  func client(_ transport: StubTransport, _ middleware: [any Middleware] = []) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.middleware = middleware
    return makeClient(transport: transport, configuration: configuration)
  }

  @Test("a stream of byte chunks goes out whole, with its Content-Type and, when given, length")
  func sent() async throws {
    let transport = stub([200])
    let client = client(transport)
    _ = try await client.send(
      Request<String>(
        method: .post, path: "up", body: .stream(chunks(), contentType: "text/plain")))
    _ = try await client.send(
      Request<String>(method: .post, path: "up", body: .stream(chunks(), length: 6)))
    let sent = transport.requests
    #expect(sent.map(\.httpBody) == [Data("abbccc".utf8), Data("abbccc".utf8)])
    #expect(sent[0].value(forHTTPHeaderField: "Content-Type") == "text/plain")
    #expect(sent[0].value(forHTTPHeaderField: "Content-Length") == nil)
    #expect(sent[1].value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
    #expect(sent[1].value(forHTTPHeaderField: "Content-Length") == "6")
  }

  @Test("a stream on a GET is refused before anything is sent, as every body is")
  func refusedOnGet() async throws {
    let transport = stub([200])
    await #expect(throws: HTTPError.self) {
      try await client(transport).send(Request<String>(path: "up", body: .stream(chunks())))
    }
    #expect(transport.requests.isEmpty)
  }

  @Test("RetryPolicy does not send a one-time stream again: the 503 comes back as it came")
  func notRetried() async throws {
    let transport = stub([503, 200])
    let policy = RetryPolicy(methods: [.post], clock: RecordingClock())
    let client = client(transport, [policy])
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(method: .post, path: "up", body: .stream(chunks())))
    }
    #expect(error?.status == 503)
    #expect(transport.requests.count == 1)
  }

  @Test("RetryPolicy sends a stream made afresh again, whole")
  func replayableRetried() async throws {
    let transport = stub([503, 200])
    let policy = RetryPolicy(methods: [.post], clock: RecordingClock())
    let client = client(transport, [policy])
    let body = RequestBody.stream { chunks() }
    let answer = try await client.send(Request<String>(method: .post, path: "up", body: body))
    #expect(answer == "ok")
    #expect(transport.requests.map(\.httpBody) == [Data("abbccc".utf8), Data("abbccc".utf8)])
  }

  @Test("BearerAuthentication refreshes on a 401 but does not replay a one-time stream")
  func notReplayedAfterRefresh() async throws {
    let transport = stub([401, 200])
    let provider = CountingProvider()
    let client = client(transport, [BearerAuthentication(provider: provider)])
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(method: .post, path: "up", body: .stream(chunks())))
    }
    #expect(error?.status == 401)
    #expect(transport.requests.count == 1)
    #expect(await provider.refreshCount == 1)
  }

  @Test("a one-time source is replayable until opened; a second reading fails clearly")
  func oneTimeSource() async throws {
    let source = TransportRequestBody.stream(chunks())
    #expect(source.isReplayable)
    #expect(try await source.collect() == Data("abbccc".utf8))
    #expect(!source.isReplayable)
    let error = await #expect(throws: HTTPError.self) { try await source.collect() }
    guard case .transport(let urlError) = error else {
      Issue.record("expected a transport error, got \(String(describing: error))")
      return
    }
    #expect(urlError.code == .requestBodyStreamExhausted)
    #expect(urlError.localizedDescription.contains("one-time stream"))
  }

  @Test("a sequence that throws ends the request with requestBodyStreamExhausted and its error")
  func failingSequence() async throws {
    struct Broken: Error {}
    let failing = AsyncThrowingStream<Data, any Error> { continuation in
      continuation.yield(Data("a".utf8))
      continuation.finish(throwing: Broken())
    }
    let error = await #expect(throws: HTTPError.self) {
      try await client(stub([200])).send(
        Request<String>(method: .post, path: "up", body: .stream(failing)))
    }
    guard case .transport(let urlError) = error else {
      Issue.record("expected a transport error, got \(String(describing: error))")
      return
    }
    #expect(urlError.code == .requestBodyStreamExhausted)
    #expect(urlError.errorUserInfo[NSUnderlyingErrorKey] is Broken)
  }

  @Test("a stream that ends short of its length, or runs past it, fails the request clearly")
  func lengthNotMet() async throws {
    for length: Int64 in [5, 7] {
      let error = await #expect(throws: HTTPError.self) {
        try await client(stub([200])).send(
          Request<String>(method: .post, path: "up", body: .stream(chunks(), length: length)))
      }
      guard case .transport(let urlError) = error else {
        Issue.record("expected a transport error, got \(String(describing: error))")
        continue
      }
      #expect(urlError.code == .requestBodyStreamExhausted)
      #expect(urlError.localizedDescription.contains("announced as \(length) bytes"))
    }
  }
}
