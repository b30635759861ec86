import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension LoopbackServerTests {
  @Test("resolves clientDisconnected() when the client cancels its task")
  func clientCancels() async throws {
    let (started, handlerStarted) = AsyncStream.makeStream(of: Void.self)
    let (observations, observed) = AsyncStream.makeStream(of: (gone: Bool, writeFailed: Bool).self)
    let server = try LoopbackServer { _, response in
      try await response.writeHead(contentLength: 1000)
      try await response.write(Data(repeating: 0x41, count: 10))
      handlerStarted.yield()
      await response.clientDisconnected()
      let writeFailed: Bool
      do {
        try await response.write(Data(repeating: 0x42, count: 990))
        writeFailed = false
      } catch {
        writeFailed = true
      }
      observed.yield((response.isClientDisconnected, writeFailed))
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }
    let (outcomes, reportOutcome) = AsyncStream.makeStream(
      of: Result<FetchedResponse, any Error>.self)

    let task = client.start(server.baseURL) { reportOutcome.yield($0) }
    var startedIterator = started.makeAsyncIterator()
    await startedIterator.next()
    task.cancel()

    var observationIterator = observations.makeAsyncIterator()
    let observation = try #require(await observationIterator.next())
    #expect(observation.gone)
    #expect(observation.writeFailed)
    var outcomeIterator = outcomes.makeAsyncIterator()
    let outcome = try #require(await outcomeIterator.next())
    #expect(throws: URLError.self) { try outcome.get() }
  }

  @Test("answers 200 requests in flight at once, each on its own connection")
  func twoHundredConcurrent() async throws {
    let gate = ArrivalGate(count: 200)
    let server = try LoopbackServer { request, response in
      await gate.arrive()
      try await response.send(text: request.path)
    }
    defer { server.stop() }
    let client = URLSessionTestClient(maxConnectionsPerHost: 200)
    defer { client.invalidate() }

    let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
      for index in 0..<200 {
        group.addTask {
          try await client.get(server.baseURL.appendingPathComponent("\(index)")).text
            == "/\(index)"
        }
      }
      return try await group.reduce(into: [Bool]()) { $0.append($1) }
    }

    #expect(answers.count == 200)
    #expect(answers.allSatisfy { $0 })
    #expect(server.maximumActiveRequests == 200)
    #expect(server.connectionCount == 200)
  }

  @Test("tracks how many requests are answered at once, and the most so far")
  func activeRequests() async throws {
    let gate = ArrivalGate(count: 3)
    let server = try LoopbackServer { _, response in
      await gate.arrive()
      try await response.send()
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<3 {
        group.addTask { _ = try await client.get(server.baseURL) }
      }
      try await group.waitForAll()
    }
    _ = try await client.get(server.baseURL)

    #expect(server.maximumActiveRequests == 3)
    #expect(server.requestCount == 4)
  }

  @Test("counts a request as active from when it is read until its response has gone out")
  func activeDuringHandler() async throws {
    let (started, handlerStarted) = AsyncStream.makeStream(of: Void.self)
    let release = ArrivalGate(count: 2)
    let server = try LoopbackServer { _, response in
      handlerStarted.yield()
      await release.arrive()
      try await response.send()
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }
    #expect(server.activeRequests == 0)

    async let fetched = client.get(server.baseURL)
    var iterator = started.makeAsyncIterator()
    await iterator.next()
    #expect(server.activeRequests == 1)
    #expect(server.requestCount == 1)
    await release.arrive()
    _ = try await fetched

    #expect(server.activeRequests == 0)
    #expect(server.maximumActiveRequests == 1)
  }

  @Test("answers 500 with the error when the handler throws before responding")
  func handlerThrows() async throws {
    struct Boom: Error, CustomStringConvertible {
      var description: String { "boom: the handler failed" }
    }
    let server = try LoopbackServer { _, _ in throw Boom() }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    let fetched = try await client.get(server.baseURL)

    #expect(fetched.status == 500)
    #expect(fetched.text == "boom: the handler failed")
  }

  @Test("answers 500 when the handler returns without responding")
  func handlerSendsNothing() async throws {
    let server = try LoopbackServer { _, _ in }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    let fetched = try await client.get(server.baseURL)

    #expect(fetched.status == 500)
    #expect(fetched.text == "handler sent no response")
  }

  @Test("stop() frees the port, so a new request is refused, and can be called twice")
  func stopFreesThePort() async throws {
    let server = try LoopbackServer { _, response in
      try await response.send(text: "up")
    }
    let client = URLSessionTestClient()
    defer { client.invalidate() }
    #expect(try await client.get(server.baseURL).text == "up")

    server.stop()
    server.stop()

    let error = await #expect(throws: URLError.self) {
      try await client.get(server.baseURL)
    }
    #expect(error?.code == .cannotConnectToHost)
  }

  @Test("stop() cancels the handlers still running")
  func stopCancelsHandlers() async throws {
    let (started, cancelled) = (Signal(), Signal())
    let server = try LoopbackServer { _, _ in
      started.fire()
      do {
        try await Task.sleep(for: .seconds(3600))
      } catch is CancellationError {
        cancelled.fire()
      }
    }
    let client = URLSessionTestClient()
    defer { client.invalidate() }
    let request = Task { try await client.get(server.baseURL) }
    await started.wait()
    server.stop()
    await cancelled.wait()
    _ = await request.result
  }

  @Test("a server let go stops as stop() does: its port refuses connections")
  func deinitStops() async throws {
    let client = URLSessionTestClient()
    defer { client.invalidate() }
    var url: URL?
    do {
      let server = try LoopbackServer { _, response in try await response.send(text: "up") }
      url = server.baseURL
      #expect(try await client.get(server.baseURL).text == "up")
    }
    let error = await #expect(throws: URLError.self) { try await client.get(try #require(url)) }
    #expect(error?.code == .cannotConnectToHost)
  }

  @Test("a server stopped again later leaves alone the servers made after its first stop")
  func stoppedAgainLeavesOthersAlone() async throws {
    let client = URLSessionTestClient()
    defer { client.invalidate() }
    // A stopped server's socket is closed soon after, and a server made next is often given
    // its descriptor: stopping the first again (as its deinit does) must not shut that one
    // down.
    for round in 0..<50 {
      let first = try LoopbackServer { _, response in try await response.send(text: "first") }
      first.stop()
      await Task.yield()
      let next = try LoopbackServer { _, response in try await response.send(text: "\(round)") }
      defer { next.stop() }
      first.stop()
      #expect(try await client.get(next.baseURL).text == "\(round)")
    }
  }

  @Test("closedPort() gives a port that refuses connections")
  func closedPort() async throws {
    let port = try LoopbackServer.closedPort()
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    let error = await #expect(throws: URLError.self) {
      try await client.get(try #require(URL(string: "http://127.0.0.1:\(port)/")))
    }
    #expect(error?.code == .cannotConnectToHost)
  }

  @Test("closedPort() is held: the same port each time, and no other socket can take it")
  func closedPortHeld() throws {
    let port = try LoopbackServer.closedPort()
    #expect(try LoopbackServer.closedPort() == port)
    // A server started meanwhile by a test running in parallel cannot bind it.
    let fd = socket(AF_INET, Self.streamType, 0)
    try #require(fd >= 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    #if canImport(Darwin)
      address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    #endif
    let refusal = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 ? 0 : errno
      }
    }
    #expect(refusal == EADDRINUSE)
  }

  #if canImport(Darwin)
    private static let streamType = SOCK_STREAM
  #else
    private static let streamType = Int32(SOCK_STREAM.rawValue)
  #endif

  @Test("servers are independent: each has its own port and counters")
  func independentServers() async throws {
    let first = try LoopbackServer { _, response in try await response.send(text: "first") }
    let second = try LoopbackServer { _, response in try await response.send(text: "second") }
    defer {
      first.stop()
      second.stop()
    }
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    #expect(try await client.get(second.baseURL).text == "second")

    #expect(first.port != second.port)
    #expect(first.requestCount == 0)
    #expect(second.requestCount == 1)
  }
}
