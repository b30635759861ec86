import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite("Identical concurrent GETs share one network call", .timeLimit(.minutes(1)))
struct CoalescingTests {
  /// A server whose answers wait for `release`, counting the requests it receives.
  func heldServer(
    configuration: HTTPClient.Configuration = HTTPClient.Configuration(), release: Gate,
    gone: Signal = Signal()
  ) throws -> Loopback {
    try Loopback(configuration: configuration) { request, response in
      await release.wait()
      guard !response.isClientDisconnected else {
        gone.fire()
        return
      }
      try await response.send(text: "answer to \(request.method) \(request.path)")
    }
  }

  /// A configuration whose observer signals once `count` callers share one call: the
  /// first sends it, and `count - 1` report waiting for it.
  func joining(_ count: Int) -> (HTTPClient.Configuration, Signal) {
    let signal = Signal()
    let waiting = Locked(0)
    var configuration = HTTPClient.Configuration()
    configuration.observer = { event in
      guard case .waiting(_, for: .identicalRequest) = event else { return }
      if waiting.withLock({ count in
        count += 1
        return count
      }) >= count - 1 {
        signal.fire()
      }
    }
    return (configuration, signal)
  }

  @Test("ten callers, one server hit, every caller answered")
  func tenCallersOneHit() async throws {
    let release = Gate()
    let (configuration, allJoined) = joining(10)
    let loopback = try heldServer(configuration: configuration, release: release)
    defer { loopback.stop() }
    let client = loopback.client
    let callers = (0..<10).map { _ in
      Task { try await client.send(Request<String>(path: "popular")) }
    }
    await watched { await allJoined.wait() }
    release.open()
    for caller in callers {
      #expect(try await caller.value == "answer to GET /3/popular")
    }
    #expect(loopback.server.requestCount == 1)
    // The finished call is forgotten: the next identical request is sent afresh.
    #expect(try await client.send(Request<String>(path: "popular")) == "answer to GET /3/popular")
    #expect(loopback.server.requestCount == 2)
  }

  @Test("each caller decodes the shared answer as its own endpoint's type")
  func differentResponseTypes() async throws {
    let release = Gate()
    let (configuration, allJoined) = joining(2)
    let loopback = try heldServer(configuration: configuration, release: release)
    defer { loopback.stop() }
    let client = loopback.client
    let text = Task { try await client.send(Request<String>(path: "x")) }
    let data = Task { try await client.send(Request<Data>(path: "x")) }
    await watched { await allJoined.wait() }
    release.open()
    #expect(try await text.value == "answer to GET /3/x")
    #expect(try await data.value == Data("answer to GET /3/x".utf8))
  }

  @Test("other methods, other headers and a client that opts out each get calls of their own")
  func notShared() async throws {
    let release = Gate()
    release.open()
    let loopback = try heldServer(release: release)
    defer { loopback.stop() }
    let client = loopback.client
    async let first = client.send(Request<String>(method: .post, path: "rate"))
    async let second = client.send(Request<String>(method: .post, path: "rate"))
    _ = try await (first, second)
    #expect(loopback.server.requestCount == 2)

    var configuration = HTTPClient.Configuration()
    configuration.coalescesRequests = false
    let arrived = ArrivalGate(count: 3)
    let reachedServer = Signal()
    let counter = try Loopback(configuration: configuration) { _, response in
      await arrived.arrive()
      reachedServer.fire()
      try await response.send(text: "ok")
    }
    defer { counter.stop() }
    let calls = (0..<3).map { _ in
      Task { try await counter.client.send(Request<String>(path: "same")) }
    }
    await watched { await reachedServer.wait() }  // all three reached the server at once
    for call in calls { _ = try await call.value }
    #expect(counter.server.requestCount == 3)
  }

  @Test("requests differing only in a header are not shared")
  func headersMatter() async throws {
    let arrived = ArrivalGate(count: 2)
    let loopback = try Loopback { request, response in
      await arrived.arrive()
      try await response.send(text: request.headers["Authorization"] ?? "-")
    }
    defer { loopback.stop() }
    let client = loopback.client
    async let alice = client.send(Request<String>(path: "me", headers: ["Authorization": "alice"]))
    async let bob = client.send(Request<String>(path: "me", headers: ["Authorization": "bob"]))
    #expect(try await [alice, bob] == ["alice", "bob"])
    #expect(loopback.server.requestCount == 2)
  }

  @Test("requests differing only in their timeout are not shared")
  func timeoutMatters() async throws {
    let arrived = ArrivalGate(count: 2)  // both must reach the server, or neither is answered
    let loopback = try Loopback { _, response in
      await arrived.arrive()
      try await response.send(text: "ok")
    }
    defer { loopback.stop() }
    let client = loopback.client
    let outcome = await watched {
      async let short = client.send(Request<String>(path: "me", timeout: .seconds(30)))
      async let long = client.send(Request<String>(path: "me", timeout: .seconds(40)))
      return (try? await [short, long]) ?? []
    }
    #expect(outcome == ["ok", "ok"])
    #expect(loopback.server.requestCount == 2)
  }

  @Test("identical HEAD requests share one call too")
  func headShared() async throws {
    let release = Gate()
    let (configuration, allJoined) = joining(3)
    let loopback = try heldServer(configuration: configuration, release: release)
    defer { loopback.stop() }
    let client = loopback.client
    let callers = (0..<3).map { _ in
      Task {
        try await client.response(for: Request<EmptyResponse>(method: .head, path: "popular"))
      }
    }
    await watched { await allJoined.wait() }
    release.open()
    for caller in callers {
      #expect(try await caller.value.response.status == 200)
    }
    #expect(loopback.server.requestCount == 1)
  }

  @Test("a caller that cancels leaves at once; the call goes on for the others")
  func oneCallerCancels() async throws {
    let release = Gate()
    let gone = Signal()
    let (configuration, allJoined) = joining(3)
    let loopback = try heldServer(configuration: configuration, release: release, gone: gone)
    defer { loopback.stop() }
    let client = loopback.client
    let callers = (0..<3).map { _ in Task { try await client.send(Request<String>(path: "x")) } }
    await watched { await allJoined.wait() }
    callers[0].cancel()
    await expectCancelled(callers[0])
    release.open()
    #expect(try await callers[1].value == "answer to GET /3/x")
    #expect(try await callers[2].value == "answer to GET /3/x")
    #expect(loopback.server.requestCount == 1)
  }

  @Test("when the last caller leaves, the shared call is cancelled on the wire")
  func lastOneOut() async throws {
    let started = Signal()
    let gone = Signal()
    let (configuration, allJoined) = joining(2)
    let loopback = try Loopback(configuration: configuration) { request, response in
      if request.path.hasSuffix("wait") {
        started.fire()
        await response.clientDisconnected()
        gone.fire()
      } else {
        try await response.send(text: "fresh")
      }
    }
    defer { loopback.stop() }
    let client = loopback.client
    let callers = (0..<2).map { _ in Task { try await client.send(Request<String>(path: "wait")) } }
    await watched { await allJoined.wait() }
    await started.wait()
    callers[0].cancel()
    callers[1].cancel()
    for caller in callers {
      await expectCancelled(caller)
    }
    await watched { await gone.wait() }
    #expect(try await client.send(Request<String>(path: "next")) == "fresh")
  }
}
