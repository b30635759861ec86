import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// When an event stream reconnects: the stream's `retry:` after a connection that gave
/// events, and never less than the policy's delay after one that gave none. On the stub
/// transport and a manual clock.
@Suite("Server-Sent Events: when a reconnection waits", .timeLimit(.minutes(1)))
struct ServerSentEventsReconnectionTests {
  let clock = ManualClock()

  /// A client whose reconnection delays run on `clock`, answering the `n`th connection
  /// (from 1) with `answer(n)`, and recording when each arrived.
  func client(
    _ connections: Locked<[ContinuousClock.Instant]>, answer: @escaping @Sendable (Int) -> String?
  ) -> HTTPClient {
    let clock = self.clock
    let stub = StubTransport().on(.get, "/feed") { _ in
      let count = connections.withLock { times in
        times.append(clock.now)
        return times.count
      }
      guard let text = answer(count) else { return .status(204) }
      return StubResponse(headers: ["Content-Type": "text/event-stream"], text: text)
    }
    var configuration = HTTPClient.Configuration()
    configuration.clock = clock
    return HTTPClient(
      baseURL: URL(string: "https://api.test")!, configuration: configuration, transport: stub)
  }

  @Test("retry: 0 is honoured after events; after a connection without one, the policy's delay")
  func retryZeroAfterNothing() async throws {
    let connections = Locked<[ContinuousClock.Instant]>([])
    let client = client(connections) { connection in
      switch connection {
      case 1: "retry: 0\ndata: one\n\n"
      case 2: "retry: 0\n\n"  // ends with no event, as a hostile or broken server may
      case 3: "data: two\n\n"
      default: nil
      }
    }
    let start = clock.now
    // The one wait there should be: the policy's 5 s after the second connection.
    let clock = self.clock
    let ticker = Task {
      await clock.sleepers(atLeast: 1)
      clock.advance(by: .seconds(5))
    }
    defer { ticker.cancel() }
    var data: [String] = []
    for try await event in client.events(
      Request<Data>(path: "feed"), reconnection: ReconnectionPolicy(delay: .seconds(5)))
    {
      data.append(event.data)
    }
    #expect(data == ["one", "two"])
    let offsets = connections.withLock { $0 }.map { start.duration(to: $0) }
    #expect(offsets == [.zero, .zero, .seconds(5), .seconds(5)])
  }

  @Test("a server that answers retry: 0 and closes, again and again, is met at the policy's pace")
  func noTightLoop() async throws {
    let connections = Locked<[ContinuousClock.Instant]>([])
    let client = client(connections) { connection in
      connection == 1 ? "retry: 0\ndata: first\n\n" : "retry: 0\n\n"
    }
    let start = clock.now
    let events = client.events(
      Request<Data>(path: "feed"), reconnection: ReconnectionPolicy(delay: .seconds(2)))
    let reader = Task {
      for try await _ in events {}
    }
    defer { reader.cancel() }
    // Connection 2 follows the event at once (retry: 0); each one after waits 2 s.
    for second in 1...3 {
      await clock.sleepers(atLeast: 1)
      #expect(connections.withLock { $0.count } == second + 1)
      clock.advance(by: .seconds(2))
    }
    await clock.sleepers(atLeast: 1)
    let offsets = connections.withLock { $0 }.map { start.duration(to: $0) }
    #expect(offsets == [.zero, .zero, .seconds(2), .seconds(4), .seconds(6)])
  }

  @Test(
    "once the iterator has thrown (a 404, a wrong media type), it is over: nothing is sent again",
    arguments: [404, 200])
  func overOnceThrown(_ status: Int) async throws {
    let requests = Locked(0)
    let stub = StubTransport().on(.get, "/feed") { _ in
      requests.withLock { $0 += 1 }
      return StubResponse(status: status, headers: ["Content-Type": "text/plain"], text: "no")
    }
    let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: stub)
    var events = client.events(
      Request<Data>(path: "feed"), reconnection: ReconnectionPolicy(delay: .zero)
    ).makeAsyncIterator()
    await #expect(throws: HTTPError.self) { _ = try await events.next() }
    // A hurried caller that goes on asking after the error: the end, not another request.
    #expect(try await events.next() == nil)
    #expect(try await events.next() == nil)
    #expect(requests.withLock { $0 } == 1)
  }

  @Test("a connection that drops is opened again by the same iterator (the good path beside it)")
  func reopensAfterADrop() async throws {
    let connections = Locked<[ContinuousClock.Instant]>([])
    let client = client(connections) { connection in
      connection < 3 ? "data: \(connection)\n\n" : nil
    }
    let clock = self.clock
    let ticker = Task {
      for _ in 1...2 {
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
      }
    }
    defer { ticker.cancel() }
    var events = client.events(
      Request<Data>(path: "feed"), reconnection: ReconnectionPolicy(delay: .seconds(1))
    ).makeAsyncIterator()
    #expect(try await events.next()?.data == "1")
    #expect(try await events.next()?.data == "2")
    #expect(try await events.next() == nil)  // the 204
    #expect(connections.withLock { $0.count } == 3)
  }
}
