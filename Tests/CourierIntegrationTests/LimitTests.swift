import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite("The client's concurrency limits", .timeLimit(.minutes(1)))
struct LimitTests {
  @Test("1,000 requests through a limit of 8: the server never sees more than 8 at once")
  func thousandThroughEight() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.maximumConcurrentRequests = 8
    let firstEight = ArrivalGate(count: 8)
    let loopback = try Loopback(configuration: configuration) { request, response in
      await firstEight.arrive()  // proves 8 do run at once
      try await response.send(text: request.path)
    }
    defer { loopback.stop() }
    let client = loopback.client
    let answers = try await withThrowingTaskGroup(of: String.self) { group in
      for index in 0..<1000 {
        group.addTask { try await client.send(Request<String>(path: "item/\(index)")) }
      }
      return try await group.reduce(into: [String]()) { $0.append($1) }
    }
    #expect(Set(answers).count == 1000)
    #expect(loopback.server.requestCount == 1000)
    #expect(loopback.server.maximumActiveRequests == 8)
    #expect(client.limiter.availablePermits == 8)
  }

  @Test("a waiter cancelled in the queue leaves at once and the queue moves on")
  func cancelledWaiter() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.maximumConcurrentRequests = 1
    let queued = Signal()
    configuration.observer = { event in
      if case .waiting(let request, for: .concurrencyLimit) = event,
        request.url.hasSuffix("waiter")
      {
        queued.fire()
      }
    }
    let holding = Signal()
    let release = Gate()
    let loopback = try Loopback(configuration: configuration) { request, response in
      if request.path.hasSuffix("hold") {
        holding.fire()
        await release.wait()
      }
      try await response.send(text: request.path)
    }
    defer { loopback.stop() }
    let client = loopback.client
    let holder = Task { try await client.send(Request<String>(path: "hold")) }
    await holding.wait()
    let waiter = Task { try await client.send(Request<String>(path: "waiter")) }
    await watched { await queued.wait() }  // suspended in the queue, behind the holder
    waiter.cancel()
    await expectCancelled(waiter)
    release.open()
    #expect(try await holder.value == "/3/hold")
    #expect(try await client.send(Request<String>(path: "after")) == "/3/after")
    #expect(loopback.server.requestCount == 2)  // the cancelled waiter never reached the server
    #expect(client.limiter.availablePermits == 1)
  }

  @Test("permits come back after failures, timeouts and cancellations")
  func noLeakedPermits() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.maximumConcurrentRequests = 3
    let loopback = try Loopback(configuration: configuration) { request, response in
      switch request.path.split(separator: "/").last {
      case "fail": try await response.send(status: 500, text: "no")
      case "cut": response.closeConnection()
      case "slow": await response.clientDisconnected()
      default: try await response.send(text: "ok")
      }
    }
    defer { loopback.stop() }
    let client = loopback.client
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<60 {
        let kind = ["fail", "cut", "slow", "ok"][index % 4]
        group.addTask {
          _ = try? await client.send(
            Request<String>(path: "\(index)/\(kind)", timeout: .milliseconds(100)))
        }
      }
    }
    let cancelled = Task { try await client.send(Request<String>(path: "x/slow")) }
    cancelled.cancel()
    _ = await cancelled.result
    #expect(client.limiter.availablePermits == 3)
    #expect(try await client.send(Request<String>(path: "last/ok")) == "ok")
  }

  @Test("a per-host limit applies to each host and port separately")
  func perHost() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.maximumConcurrentRequestsPerHost = 2
    let gateA = ArrivalGate(count: 2)
    let gateB = ArrivalGate(count: 2)
    let serverA = try LoopbackServer { _, response in
      await gateA.arrive()
      try await response.send(text: "a")
    }
    let serverB = try LoopbackServer { _, response in
      await gateB.arrive()
      try await response.send(text: "b")
    }
    defer {
      serverA.stop()
      serverB.stop()
    }
    let client = HTTPClient(baseURL: serverA.baseURL, configuration: configuration)
    let urls = (0..<20).map { index in
      (index.isMultiple(of: 2) ? serverA : serverB).baseURL.appendingPathComponent("\(index)")
    }
    let answers = try await client.send(
      all: urls.map { Request<String>(path: $0.absoluteString) }, maximumConcurrent: 20)
    #expect(answers.filter { $0 == "a" }.count == 10)
    #expect(serverA.maximumActiveRequests == 2)
    #expect(serverB.maximumActiveRequests == 2)
  }
}

extension LimitTests {
  /// Two origins that redirect every request to a third, held there until the test lets it
  /// go: with one request per host, the third never has two at once. The second request is
  /// let go when it has queued for the third's place, or when the third saw it (the bug).
  @Test("a redirect to another origin counts there: it gives its place back and queues anew")
  func perHostAcrossRedirects() async throws {
    try await perHostAcrossRedirects(HTTPClient.Configuration())
  }

  /// The test above with `configuration` (TracingLoopbackTests runs it with a tracer).
  func perHostAcrossRedirects(_ configuration: HTTPClient.Configuration) async throws {
    let letGo = Gate()
    let arrived = Signal()
    let target = try LoopbackServer { request, response in
      if request.path == "/first" {
        arrived.fire()
        await letGo.wait()
      } else {
        letGo.open()
      }
      try await response.send(text: request.path)
    }
    let origins = try (0..<2).map { _ in
      try LoopbackServer { request, response in
        let next = target.baseURL.appendingPathComponent(String(request.path.dropFirst()))
        try await response.send(status: 302, headers: ["Location": next.absoluteString])
      }
    }
    defer { for server in [target] + origins { server.stop() } }
    var configuration = configuration
    configuration.maximumConcurrentRequestsPerHost = 1
    configuration.observer = { event in
      if case .waiting(let request, for: .concurrencyLimit) = event,
        request.url.hasSuffix("second")
      {
        letGo.open()
      }
    }
    let client = HTTPClient(baseURL: origins[0].baseURL, configuration: configuration)
    async let held = client.send(Request<String>(path: "first"))
    await watched { await arrived.wait() }
    let second = try await client.send(
      Request<String>(path: origins[1].baseURL.appendingPathComponent("second").absoluteString))
    #expect(try await held == "/first" && second == "/second")
    #expect(target.maximumActiveRequests == 1)
    // Both origins' places were given back, and the target's.
    #expect(client.limiter.hostsInUse == 0)
  }
}

extension LimitTests {
  /// With one request overall and one per host, a request queued for the overall place holds
  /// its host's: a redirect into that host must not wait for it while keeping the overall
  /// place, or neither request could ever move.
  @Test("a redirect into a host whose place a queued request holds: both requests finish")
  func redirectIntoQueuedHost() async throws {
    let queued = Signal()
    let target = try LoopbackServer { request, response in
      try await response.send(text: request.path)
    }
    let arrived = Signal()
    let origin = try LoopbackServer { _, response in
      arrived.fire()  // the first request holds the origin's place and the overall one
      await queued.wait()  // the second request holds the target's place, waiting overall
      let next = target.baseURL.appendingPathComponent("redirected")
      try await response.send(status: 302, headers: ["Location": next.absoluteString])
    }
    defer { for server in [target, origin] { server.stop() } }
    var configuration = HTTPClient.Configuration()
    configuration.maximumConcurrentRequests = 1
    configuration.maximumConcurrentRequestsPerHost = 1
    configuration.observer = { event in
      if case .waiting(let request, for: .concurrencyLimit) = event,
        request.url.hasSuffix("direct")
      {
        queued.fire()
      }
    }
    let client = HTTPClient(baseURL: origin.baseURL, configuration: configuration)
    async let redirected = client.send(Request<String>(path: "first"))
    await watched { await arrived.wait() }
    let direct = await watched {
      try? await client.send(
        Request<String>(path: target.baseURL.appendingPathComponent("direct").absoluteString))
    }
    #expect(direct == "/direct")
    #expect(try await redirected == "/redirected")
    #expect(client.limiter.availablePermits == 1)
  }
}
