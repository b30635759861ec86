#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// What CurlTransport does beyond the contract (which TransportConformanceTests holds it to,
  /// and `COURIER_TRANSPORT=curl swift test` runs the whole suite on it).
  @Suite("CurlTransport", .timeLimit(.minutes(2)))
  struct CurlTransportTests {
    private func get(_ url: URL) -> TransportRequest {
      TransportRequest(head: URLRequest(url: url))
    }

    @Test("the system's libcurl is found, and says what it supports")
    func library() {
      #expect(CurlTransport.isAvailable)
      #expect(CurlTransport.libraryVersion?.hasPrefix("libcurl/") == true)
    }

    @Test("a slow reader pauses the transfer: nothing spills to disk, memory stays in the buffer")
    func backPressure() async throws {
      let size = 8 << 20
      let server = try LoopbackServer { _, response in try await response.sendPattern(size: size) }
      defer { server.stop() }
      let bufferSize = 256 * 1024
      let response = try await CurlTransport().send(
        get(server.baseURL.appendingPathComponent("big")),
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

    @Test("a slow reader's body past the size limit: the paused transfer fails, it never stalls")
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
        get(server.baseURL.appendingPathComponent("endless")),
        options: TransportOptions(maximumBytes: 1_000_000, bufferSize: 16 * 1024))
      // Read slowly, so that the transfer pauses and resumes all along (the bytes that cross
      // the limit may come as it resumes, which libcurl 7.88 reports from curl_easy_pause).
      let failure = await watched {
        do {
          for try await _ in response.body { await Task.yield() }
          return HTTPError?.none
        } catch {
          return error as? HTTPError
        }
      }
      #expect(failure == .some(.responseTooLarge(limit: 1_000_000)))
    }

    @Test("gzip is decoded, and the size limit counts decoded bytes")
    func gzip() async throws {
      let plain = Data(repeating: 0x61, count: 200_000)
      let compressed = try await gzipped(plain)
      let server = try LoopbackServer { _, response in
        try await response.send(headers: ["Content-Encoding": "gzip"], body: compressed)
      }
      defer { server.stop() }
      let transport = CurlTransport()
      let url = server.baseURL.appendingPathComponent("z")
      let whole = try await transport.send(URLRequest(url: url))
      #expect(whole.body == plain)
      #expect(compressed.count < 10_000)
      let error = await #expect(throws: HTTPError.self) {
        _ = try await transport.send(
          URLRequest(url: url), options: TransportOptions(maximumBytes: 100_000))
      }
      #expect(error == .responseTooLarge(limit: 100_000))
    }

    @Test("TLS: a server is trusted through the custom CA, refused without it")
    func customAuthority() async throws {
      let server = try await TLSTestServer.start()
      defer { server.stop() }
      let trusted = try await CurlTransport(certificateAuthorities: server.certificate)
        .send(URLRequest(url: server.url))
      #expect(trusted.status == 200)

      let error = await #expect(throws: HTTPError.self) {
        _ = try await CurlTransport().send(URLRequest(url: server.url))
      }
      #expect(error?.urlErrorCode == .serverCertificateUntrusted)
    }

    @Test("TLS: a pinned public key lets its server through and refuses any other")
    func pinning() async throws {
      let server = try await TLSTestServer.start()
      defer { server.stop() }
      let pinned = try await CurlTransport(
        certificateAuthorities: server.certificate, pinnedPublicKeys: [server.publicKeyHash]
      ).send(URLRequest(url: server.url))
      #expect(pinned.status == 200)

      let other = Data(repeating: 7, count: 32).base64EncodedString()
      let error = await #expect(throws: HTTPError.self) {
        _ = try await CurlTransport(
          certificateAuthorities: server.certificate, pinnedPublicKeys: [other]
        ).send(URLRequest(url: server.url))
      }
      #expect(error?.urlErrorCode == .serverCertificateUntrusted)
    }

    @Test("a URL that is not http or https is refused and nothing is sent; http works")
    func badURL() async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      let transport = CurlTransport()
      let good = try await transport.send(URLRequest(url: server.baseURL))
      #expect(good.text == "ok")
      for target in ["ftp://127.0.0.1:\(server.port)/", "file:///etc/passwd"] {
        let error = await #expect(throws: HTTPError.self) {
          _ = try await transport.send(URLRequest(url: URL(string: target)!))
        }
        #expect(error?.urlErrorCode == .unsupportedURL)
      }
      #expect(server.requestCount == 1)
    }

    @Test("timings come from libcurl: the first byte within the total, a reused connection")
    func timings() async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      let transport = CurlTransport()
      let measured = Locked<[HTTPTimings]>([])
      var options = TransportOptions()
      options.timings = { timings in measured.withLock { $0.append(timings) } }
      let url = server.baseURL.appendingPathComponent("t")
      _ = try await transport.send(URLRequest(url: url), options: options)
      _ = try await transport.send(URLRequest(url: url), options: options)
      let both = measured.withLock { $0 }
      try #require(both.count == 2)
      #expect(both.allSatisfy { $0.source == .libcurl && $0.networkProtocol == "http/1.1" })
      #expect(both.allSatisfy { ($0.firstByte ?? .zero) <= $0.total })
      #expect(both[0].reusedConnection == false)
      #expect(both[1].reusedConnection == true)
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

    @Test("Content-Length read as bytes: repeats are one length, a disagreement refuses the head")
    func contentLength() {
      #expect(CurlTransfer.contentLength(["512"]) == .some(512))
      #expect(CurlTransfer.contentLength([" 12\t"]) == .some(12))
      #expect(CurlTransfer.contentLength(["5, 5"]) == .some(5))
      #expect(CurlTransfer.contentLength(["5", "5"]) == .some(5))
      #expect(CurlTransfer.contentLength([]) == .some(nil))
      // Not a length: the body is read to the end of the connection, as without one.
      #expect(CurlTransfer.contentLength(["abc"]) == .some(nil))
      #expect(CurlTransfer.contentLength(["+5"]) == .some(nil))
      // Disagreeing lengths: no way to tell where the body ends (RFC 9112 §6.3).
      #expect(CurlTransfer.contentLength(["5, 6"]) == nil)
      #expect(CurlTransfer.contentLength(["5", "6"]) == nil)
    }

    @Test("the head: a folded line continues its field, trailers do not end the head again")
    func headParsing() async throws {
      let server = try LoopbackServer { request, response in
        if request.path == "/folded" {
          try await response.sendRaw(
            Data(
              ("HTTP/1.1 200 OK\r\nX-Folded: first\r\n  second\r\nContent-Length: 2\r\n"
                + "Connection: close\r\n\r\nok").utf8))
        } else {
          try await response.sendRaw(
            Data(
              ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Trailer\r\n"
                + "Connection: close\r\n\r\n2\r\nok\r\n0\r\nX-Trailer: late\r\n\r\n").utf8))
        }
      }
      defer { server.stop() }
      let transport = CurlTransport()
      let folded = try await transport.send(
        URLRequest(url: server.baseURL.appendingPathComponent("folded")))
      #expect(folded.headers["X-Folded"] == "first second")
      #expect(folded.text == "ok")
      // Streamed (not collected): the trailers' blank line once replaced the reader's body.
      let streamed = try await transport.send(
        get(server.baseURL.appendingPathComponent("trailers")), options: TransportOptions())
      #expect(streamed.head.status == 200)
      #expect(streamed.head.headers["X-Trailer"] == nil)
      #expect(try await streamed.body.collect() == Data("ok".utf8))
    }

    @Test("20,000 requests with 256 in flight: every one answered, descriptors back to the pool")
    func soak() async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      let before = openDescriptors()
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
      // Open: the listening and accepted sockets of the server, and at most 32 connections
      // of the transport's (its limit per host) plus its wake-up descriptors.
      let after = openDescriptors()
      #expect(after - before <= 2 * 32 + 8, "\(before) descriptors before, \(after) after")
      let growth = ((ResidentMemory.current ?? 0) - memoryBefore) / 1_048_576
      print("CurlTransport soak: \(total) requests, resident memory grew by \(growth) MiB")
    }

    private func openDescriptors() -> Int {
      (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// `data` compressed by `gzip`, run on a thread of its own.
    private func gzipped(_ data: Data) async throws -> Data {
      try await withCheckedThrowingContinuation { continuation in
        Thread {
          continuation.resume(with: Result { try TLSTestServer.shell("gzip -c", input: data) })
        }.start()
      }
    }
  }

  extension HTTPError {
    /// The code of a transport error's `URLError`, or `nil`.
    var urlErrorCode: URLError.Code? {
      if case .transport(let error) = self { return error.code }
      return nil
    }
  }
#endif
