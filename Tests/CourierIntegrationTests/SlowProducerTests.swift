import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// TransfersAndStreaming: "With `CurlTransport`, time spent waiting for the producer does not
/// count toward the idle timeout (it is the caller's, not the network's); the whole-request
/// timeout still holds."
@Suite("A streamed body's slow producer and the idle timeout", .timeLimit(.minutes(1)))
struct SlowProducerTests {
  /// "a", then a pause of `pause`, then "b".
  static func slowChunks(pause: Duration) -> AsyncStream<Data> {
    AsyncStream { continuation in
      let task = Task {
        continuation.yield(Data("a".utf8))
        try? await Task.sleep(for: pause)  // the producer's own pace, which the test is about
        continuation.yield(Data("b".utf8))
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  static func server() throws -> LoopbackServer {
    try LoopbackServer { request, response in
      try await response.send(text: String(decoding: request.body, as: UTF8.self))
    }
  }

  @Test("a producer slower than the idle timeout is waited for: the body goes out whole")
  func idleTimeoutWaits() async throws {
    let server = try Self.server()
    defer { server.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.idleTimeout = .milliseconds(200)
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    guard sendsOverCurl(client) else { return }  // the sentence is CurlTransport's
    let request = Request<String>(
      method: .post, path: "up", body: .stream(Self.slowChunks(pause: .milliseconds(700))))
    let answer = await watched { try? await client.send(request) }
    #expect(answer == "ab")
  }

  /// Over URLSessionTransport on Linux, which gathers a streamed body into a file before it
  /// sends, the deadline did not run while the body was gathered: a 300 ms timeout held its
  /// caller for as long as the producer took (30 s, or for good).
  @Test("the whole-request timeout still holds while the producer is slow, on every transport")
  func deadlineHolds() async throws {
    let server = try Self.server()
    defer { server.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.timeout = .milliseconds(300)
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    let (chunks, producer) = AsyncStream.makeStream(of: Data.self)
    producer.yield(Data("a".utf8))  // and nothing more, no end, while the caller waits
    defer { producer.finish() }
    let request = Request<String>(method: .post, path: "up", body: .stream(chunks))
    let outcome = await watched {
      await Result { () async throws(HTTPError) in try await client.send(request) }
    }
    guard case .failure(.timedOut)? = outcome else {
      Issue.record("expected timedOut, got \(String(describing: outcome))")
      return
    }
    #expect(server.requestCount == 0)
  }

  /// A producer that sends "a" and then waits on a latch that task cancellation does not
  /// open: a sequence written without a thought for cancellation, as users write them.
  struct StubbornChunks: AsyncSequence, Sendable {
    let latch: Latch

    struct AsyncIterator: AsyncIteratorProtocol {
      let latch: Latch
      var sent = false

      mutating func next() async -> Data? {
        guard sent else {
          sent = true
          return Data("a".utf8)
        }
        await latch.wait()
        return nil
      }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(latch: latch) }
  }

  /// Waiters that only ``open()`` lets go, whatever happens to their tasks.
  final class Latch: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>(
      (false, []))

    func wait() async {
      await withCheckedContinuation { continuation in
        let open = state.withLock { state in
          if !state.open { state.waiters.append(continuation) }
          return state.open
        }
        if open { continuation.resume() }
      }
    }

    func open() {
      let waiters = state.withLock { state in
        state.open = true
        defer { state.waiters = [] }
        return state.waiters
      }
      for waiter in waiters { waiter.resume() }
    }
  }

  /// A hurried user's producer ignores cancellation: the timeout still answers the caller
  /// at the deadline, rather than when the producer gets round to ending.
  @Test("the timeout holds against a producer that ignores cancellation, on every transport")
  func deadlineHoldsAgainstStubbornProducer() async throws {
    let server = try Self.server()
    defer { server.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.timeout = .milliseconds(300)
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    let latch = Latch()
    defer { latch.open() }
    let request = Request<String>(
      method: .post, path: "up", body: .stream(StubbornChunks(latch: latch)))
    let outcome = await watched {
      await Result { () async throws(HTTPError) in try await client.send(request) }
    }
    guard case .failure(.timedOut)? = outcome else {
      Issue.record("expected timedOut, got \(String(describing: outcome))")
      return
    }
  }
}
