#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// How CurlTransport's driver runs libcurl: transfers paused and resumed for their readers,
  /// the thread asleep once the answers are in, easy handles reused clean, and many requests
  /// in flight with nothing leaked.
  @Suite("CurlTransport's driver", .timeLimit(.minutes(2)))
  struct CurlDriverTests {
    @Test("a slow reader pauses the transfer: nothing spills to disk, memory stays in the buffer")
    func backPressure() async throws {
      let size = 8 << 20
      let server = try LoopbackServer { _, response in try await response.sendPattern(size: size) }
      defer { server.stop() }
      let bufferSize = 256 * 1024
      let response = try await CurlTransport().send(
        TransportRequest.get(server.baseURL.appendingPathComponent("big")),
        options: TransportOptions(bufferSize: bufferSize))
      guard case .stream(let reader) = response.body.storage else {
        Issue.record("the body is not streamed")
        return
      }
      var count = 0
      var matches = true
      for try await chunk in response.body {
        matches = matches && chunk == patternBytes(chunk.count, from: count)
        count += chunk.count
        await Task.yield()  // a reader slower than the wire
      }
      #expect(count == size)
      #expect(matches)
      #expect(!reader.buffer.hasSpilled)
      #expect(reader.buffer.peakMemoryBytes <= bufferSize + 64 * 1024)
    }

    @Test(
      "a slow reader's body past the client's size limit: the paused transfer ends, it never stalls"
    )
    func limitWhileResuming() async throws {
      let server = try LoopbackServer { _, response in
        // No Content-Length to refuse early: the limit is found as the bytes arrive.
        try await response.writeHead(headers: ["Content-Type": "application/octet-stream"])
        for index in 0..<64 { try await response.write(patternBytes(64 * 1024, from: index)) }
        await response.clientDisconnected()
      }
      defer { server.stop() }
      let transport = CurlTransport()
      let response = try await transport.send(
        TransportRequest.get(server.baseURL.appendingPathComponent("endless")),
        options: TransportOptions(bufferSize: 16 * 1024))
      // Read slowly, so that the transfer pauses and resumes all along; the reader stops the
      // body past the limit (as the client's does), whichever state the transfer is in.
      let failure = await watched {
        do {
          for try await _ in response.body.limited(to: 1_000_000) { await Task.yield() }
          return HTTPError?.none
        } catch {
          return error as? HTTPError
        }
      }
      #expect(failure == .some(.responseTooLarge(limit: 1_000_000)))
    }

    @Test(
      "once every answer is in, the transport's thread sleeps: no timer of libcurl's is left due")
    func sleepsWhenIdle() async throws {
      let server = try LoopbackServer { request, response in
        try await response.send(text: "got \(request.body.count) bytes")
      }
      defer { server.stop() }
      let transport = CurlTransport()
      let url = server.baseURL.appendingPathComponent("idle")
      for _ in 0..<3 {
        let got = try await transport.send(URLRequest(url: url))
        #expect(String(decoding: got.body, as: UTF8.self) == "got 0 bytes")
      }
      var post = URLRequest(url: url)
      post.httpMethod = "POST"
      post.httpBody = Data(repeating: 1, count: 100_000)
      let posted = try await transport.send(post)
      #expect(String(decoding: posted.body, as: UTF8.self) == "got 100000 bytes")
      // A thread kept awake by a spent timer would never sleep: the watchdog fails the test.
      await watched { await transport.sleepsIdle() }
    }

    @Test(
      "no client code under the driver's lock: a stream's observer, a request let through the limit"
    )
    func clientCodeOffTheDriver() async throws {
      let server = try LoopbackServer { _, response in
        try await response.sendPattern(size: 256 * 1024)
      }
      defer { server.stop() }
      let curl = CurlTransport()
      let driver = try curl.driver.get()
      let underLock = Locked<[String]>([])
      let waiting = Signal()
      var configuration = HTTPClient.Configuration()
      configuration.maximumConcurrentRequests = 1
      configuration.observer = { event in
        switch event {
        case .waiting(_, .concurrencyLimit): waiting.fire()
        case .finished:
          if driver.lock.isHeldByCurrentThread { underLock.withLock { $0.append("observer") } }
        default: return
        }
      }
      let transport = LockProbe(base: curl) {
        if driver.lock.isHeldByCurrentThread { underLock.withLock { $0.append("transport") } }
      }
      let client = HTTPClient(
        baseURL: server.baseURL, configuration: configuration, transport: transport)
      for _ in 0..<5 {
        let stream = try await client.bytes(Request<Data>(path: "big"))
        // A buffered GET waits for the permit (shared calls run where they are resumed).
        let waiter = Task { try await client.send(Request<Data>(path: "small")) }
        await watched { await waiting.wait() }
        var count = 0
        for try await chunk in stream { count += chunk.count }
        #expect(count == 256 * 1024)
        #expect(try await waiter.value.count == 256 * 1024)
      }
      #expect(underLock.withLock { $0 } == [])
    }

    @Test("no client code under the driver's lock: buffered GETs queued behind one another")
    func bufferedOffTheDriver() async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      let curl = CurlTransport()
      let driver = try curl.driver.get()
      let underLock = Locked<[String]>([])
      var configuration = HTTPClient.Configuration()
      configuration.maximumConcurrentRequests = 1
      configuration.observer = { event in
        guard case .finished = event, driver.lock.isHeldByCurrentThread else { return }
        underLock.withLock { $0.append("observer") }
      }
      let transport = LockProbe(base: curl) {
        if driver.lock.isHeldByCurrentThread { underLock.withLock { $0.append("transport") } }
      }
      let client = HTTPClient(
        baseURL: server.baseURL, configuration: configuration, transport: transport)
      try await withThrowingTaskGroup(of: String.self) { group in
        for index in 0..<64 {
          group.addTask { try await client.send(Request<String>(path: "r\(index)")) }
        }
        for try await text in group { #expect(text == "ok") }
      }
      #expect(underLock.withLock { $0 } == [])
    }

    @Test(
      "a transfer stopped before the driver put it in (its caller cancelled meanwhile) is let go unsent"
    )
    func removedBeforeAdded() async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      let curl = CurlTransport()
      let driver = try curl.driver.get()
      let url = server.baseURL.appendingPathComponent("never")
      let transfer = CurlTransfer(
        request: .get(url), url: url, options: TransportOptions(), driver: driver)
      try transfer.prepare(upload: nil, settings: curl.settings)
      // The stop's command can reach the driver before the start's (other threads).
      driver.remove(transfer)
      driver.add(transfer)
      await watched { await curl.sleepsIdle() }
      let after = try await curl.send(URLRequest(url: server.baseURL.appendingPathComponent("a")))
      #expect(String(decoding: after.body, as: UTF8.self) == "ok")
      #expect(server.requestCount == 1)
      await watched { await curl.sleepsIdle() }
      #expect(transfer.easy == nil)
    }

    @Test("the handle recycled last is the next one made, passed on without a lock")
    func handleWithoutLock() throws {
      try Curl.library.get()
      let counter = LockCounter()
      try LockCounter.$current.withValue(counter) {
        let handles = CurlHandles(maximum: 4)
        let first = try #require(handles.make())
        let before = counter.acquisitions
        handles.recycle(first)
        let second = handles.make()
        #expect(second == first)
        #expect(counter.acquisitions == before)
        if let second { handles.recycle(second) }
        handles.close()
      }
    }

    @Test("a reused easy handle carries nothing of the request before it")
    func reusedHandles() async throws {
      let server = try LoopbackServer { request, response in
        let marker = request.headers["X-Marker"] ?? "-"
        try await response.send(text: "\(request.method) \(request.body.count) \(marker)")
      }
      defer { server.stop() }
      let transport = CurlTransport()
      let url = server.baseURL.appendingPathComponent("reuse")
      var post = URLRequest(url: url)
      post.httpMethod = "PUT"
      post.httpBody = Data("body".utf8)
      post.setValue("first", forHTTPHeaderField: "X-Marker")
      var head = URLRequest(url: url)
      head.httpMethod = "HEAD"
      // Each request waits until the one before is over and its handle back among the spares
      // (the transport's thread asleep), so that the next one takes that handle.
      var answers: [HTTPResponse] = []
      for request in [post, URLRequest(url: url), head, URLRequest(url: url)] {
        answers.append(try await transport.send(request))
        await watched { await transport.sleepsIdle() }
      }
      #expect(
        answers.map { String(decoding: $0.body, as: UTF8.self) } == [
          "PUT 4 first", "GET 0 -", "", "GET 0 -",
        ])
      #expect(answers[2].status == 200)
    }

    @Test("20,000 requests with 256 in flight: every one answered, descriptors back to the pool")
    func soak() async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      ResidentMemory.resetPeak()
      let memoryBefore = ResidentMemory.current ?? 0
      let total = 20_000
      let answered = try await withThrowingTaskGroup(of: Int.self) { group in
        var started = 0
        var answered = 0
        func add() {
          group.addTask { try await client.send(Request<String>(path: "s")) == "ok" ? 1 : 0 }
          started += 1
        }
        for _ in 0..<256 { add() }
        while let one = try await group.next() {
          answered += one
          if started < total { add() }
        }
        return answered
      }
      #expect(answered == total)
      // Held: at most 32 connections to the server (the transport's limit per host), none
      // of them closed by the server and kept by the transport. (Counted by connection, not
      // by the process's descriptors, which tests running beside this one open too.)
      let port = UInt16(server.baseURL.port ?? 0)
      let held = try #require(OpenConnections.count(toPort: port))
      #expect(held <= 32, "\(held) connections to the server are held")
      let growth = ((ResidentMemory.current ?? 0) - memoryBefore) / 1_048_576
      print(
        "CurlTransport soak: \(total) requests, resident memory grew by \(growth) MiB, "
          + "\(held) connections held")
    }
  }

  /// Runs `probe` as each request reaches the transport, then sends it on `base`.
  private struct LockProbe: HTTPTransport {
    let base: CurlTransport
    let probe: @Sendable () -> Void

    func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
      -> TransportResponse
    {
      probe()
      return try await base.send(request, options: options)
    }
  }
#endif
