import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@Suite("send(all:) and results(for:) in task groups", .timeLimit(.minutes(1)))
struct BatchTests {
  func movie(_ id: Int) -> Request<Movie> { Request(path: "movie/\(id)") }

  static func id(of request: LoopbackRequest) -> Int {
    Int(request.path.split(separator: "/").last ?? "") ?? -1
  }

  @Test("answers come back in input order, whatever order they finish in")
  func order() async throws {
    let loopback = try Loopback { request, response in
      let id = Self.id(of: request)
      try await Task.sleep(for: .milliseconds(2 * (20 - id)))  // later ids answer sooner
      try await response.send(encoding: Movie(id: id, title: "Movie \(id)"))
    }
    defer { loopback.stop() }
    let movies = try await loopback.client.send(all: (0..<20).map(movie), maximumConcurrent: 20)
    #expect(movies.map(\.id) == Array(0..<20))
  }

  @Test("never more than maximumConcurrent in flight, and exactly that many when there is work")
  func boundedConcurrency() async throws {
    let gate = ArrivalGate(count: 4)
    let loopback = try Loopback { request, response in
      await gate.arrive()
      try await response.send(encoding: Movie(id: Self.id(of: request), title: ""))
    }
    defer { loopback.stop() }
    let movies = try await loopback.client.send(all: (0..<40).map(movie), maximumConcurrent: 4)
    #expect(movies.count == 40)
    #expect(loopback.server.maximumActiveRequests == 4)
  }

  @Test("the first failure is thrown, the others are cancelled, and no more are started")
  func failFast() async throws {
    let disconnected = Locked(0)
    let othersGone = Signal()
    let started = ArrivalGate(count: 4)
    let loopback = try Loopback { request, response in
      let id = Self.id(of: request)
      await started.arrive()  // all four in flight before anyone fails
      if id == 2 {
        try await response.send(status: 500, text: "boom")
      } else {
        await response.clientDisconnected()
        if disconnected.withLock({
          $0 += 1
          return $0
        }) == 3 {
          othersGone.fire()
        }
      }
    }
    defer { loopback.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(all: (0..<100).map(movie), maximumConcurrent: 4)
    }
    #expect(error?.status == 500)
    #expect(loopback.server.requestCount == 4)
    await watched { await othersGone.wait() }
  }

  @Test("results(for:) reports every outcome in order and never throws")
  func results() async throws {
    let loopback = try Loopback { request, response in
      let id = Self.id(of: request)
      if id % 3 == 0 {
        try await response.send(status: 404, text: "no \(id)")
      } else {
        try await response.send(encoding: Movie(id: id, title: ""))
      }
    }
    defer { loopback.stop() }
    let outcomes = await loopback.client.results(for: (0..<10).map(movie), maximumConcurrent: 3)
    #expect(outcomes.count == 10)
    for (id, outcome) in outcomes.enumerated() {
      switch outcome {
      case .success(let movie): #expect(id % 3 != 0 && movie.id == id)
      case .failure(let error): #expect(id % 3 == 0 && error.status == 404)
      }
    }
  }

  @Test("cancelling the caller cancels every child at once")
  func cancellation() async throws {
    let arrived = ArrivalGate(count: 5)
    let allArrived = Signal()
    let gone = Locked(0)
    let allGone = Signal()
    let loopback = try Loopback { _, response in
      await arrived.arrive()
      allArrived.fire()
      await response.clientDisconnected()
      if gone.withLock({
        $0 += 1
        return $0
      }) == 5 {
        allGone.fire()
      }
    }
    defer { loopback.stop() }
    let client = loopback.client
    let batch = Task { try await client.send(all: (0..<50).map(movie), maximumConcurrent: 5) }
    await allArrived.wait()
    batch.cancel()
    await expectCancelled(batch)
    await watched { await allGone.wait() }
    #expect(loopback.server.requestCount == 5)
  }

  @Test("an empty collection answers at once; maximumConcurrent below 1 is an invalid request")
  func edges() async throws {
    let loopback = try Loopback { _, response in try await response.send(json: "{}") }
    defer { loopback.stop() }
    let none: [Request<Movie>] = []
    #expect(try await loopback.client.send(all: none).isEmpty)
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(all: [movie(1)], maximumConcurrent: 0)
    }
    #expect(error?.invalidRequestReason?.contains("maximumConcurrent") == true)
    await #expect(throws: HTTPError.self) {
      try await loopback.client.send(all: none, maximumConcurrent: 0)
    }
    let outcomes = await loopback.client.results(for: [movie(1), movie(2)], maximumConcurrent: 0)
    #expect(outcomes.count == 2)
    for outcome in outcomes {
      guard case .failure(let error) = outcome else {
        Issue.record("an outcome succeeded")
        continue
      }
      #expect(error.invalidRequestReason?.contains("maximumConcurrent") == true)
    }
    #expect(await loopback.client.results(for: none, maximumConcurrent: 0).isEmpty)
    #expect(loopback.server.requestCount == 0)
  }
}
