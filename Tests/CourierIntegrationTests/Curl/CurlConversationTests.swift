#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// A request whose body is a stream still being produced when its response ends, over
  /// CurlTransport, used as a hurried user would: a producer that never finishes, a reader
  /// that walks away or lets go halfway. Whatever they do, the exchange ends with the
  /// response: the connection is closed, the producer stopped, nothing stays in the driver.
  @Suite("CurlTransport: a response that ends before its streamed body", .timeLimit(.minutes(1)))
  struct CurlConversationTests {
    /// A body producer that never finishes, and a signal fired when its stream is stopped.
    struct EndlessBody {
      let chunks: AsyncStream<Data>
      let producer: AsyncStream<Data>.Continuation
      let stopped = Signal()

      init() {
        (chunks, producer) = AsyncStream<Data>.makeStream()
        let stopped = self.stopped
        producer.onTermination = { _ in stopped.fire() }
        producer.yield(Data("hello?\n".utf8))
      }
    }

    /// A server that answers once the first bytes of the body have come, with `answer`
    /// (`Content-Length`, or chunked when `chunked`), then waits for the client to go;
    /// `disconnected` fires once it has.
    static func answeringServer(
      _ answer: String, chunked: Bool, disconnected: Signal
    ) throws -> LoopbackServer {
      try LoopbackServer(streamsRequestBodies: true) { request, response in
        var body = request.bodyChunks.makeAsyncIterator()
        _ = try await body.next()
        try await response.writeHead(contentLength: chunked ? nil : answer.utf8.count)
        if !answer.isEmpty { try await response.write(Data(answer.utf8)) }
        try await response.finish()
        await response.clientDisconnected()
        disconnected.fire()
      }
    }

    @Test(
      "a producer that never ends: once the whole answer is read, the connection closes, the producer is stopped, nothing stays",
      arguments: [("fine.\n", false), ("fine.\n", true), ("", false)])
    func walkAway(answer expected: String, chunked: Bool) async throws {
      let disconnected = Signal()
      let server = try Self.answeringServer(expected, chunked: chunked, disconnected: disconnected)
      defer { server.stop() }
      let transport = CurlTransport()
      let client = HTTPClient(baseURL: server.baseURL, transport: transport)
      let body = EndlessBody()
      let stream = try await client.bytes(
        Request<Data>(method: .post, path: "ask", body: .stream(body.chunks)))
      var answer = Data()
      for try await chunk in stream { answer.append(chunk) }
      #expect(answer == Data(expected.utf8))
      // The stream is still held (the user has not let it go): the response's end ends it all.
      await watched { await disconnected.wait() }
      await watched { await body.stopped.wait() }
      await watched { await transport.sleepsIdle() }
      withExtendedLifetime(stream) {}
      // The next request opens a new connection: the one before was not kept.
      _ = try await client.send(Request<Data>(method: .post, path: "again", body: .data(Data())))
      #expect(server.connectionCount == 2)
    }

    @Test(
      "letting the answer go halfway, or cancelling its reader, while the body is produced ends it all",
      arguments: [false, true])
    func letGo(cancelling: Bool) async throws {
      let disconnected = Signal()
      let server = try LoopbackServer(streamsRequestBodies: true) { _, response in
        try await response.writeHead()
        try await response.write(Data("one\n".utf8))
        await response.clientDisconnected()
        disconnected.fire()
      }
      defer { server.stop() }
      let transport = CurlTransport()
      let client = HTTPClient(baseURL: server.baseURL, transport: transport)
      let body = EndlessBody()
      let request = Request<Data>(method: .post, path: "talk", body: .stream(body.chunks))
      let firstChunk = Signal()
      let reader = Task {
        for try await _ in try await client.bytes(request) {
          firstChunk.fire()
          if !cancelling { break }
        }
      }
      await watched { await firstChunk.wait() }
      if cancelling {
        reader.cancel()
        await expectCancelled(reader)
      } else {
        try await reader.value
      }
      await watched { await disconnected.wait() }
      await watched { await body.stopped.wait() }
      await watched { await transport.sleepsIdle() }
    }

    @Test("a conversation whose server falls silent ends at the stream's deadline, and it all ends")
    func deadline() async throws {
      let disconnected = Signal()
      let server = try LoopbackServer(streamsRequestBodies: true) { request, response in
        // On a loaded machine the deadline may pass at any step: each may find the client gone.
        try? await response.writeHead()
        try? await response.write(Data("A".utf8))
        var echoes = request.bodyChunks.makeAsyncIterator()
        _ = try? await echoes.next()  // and then nothing: the server falls silent
        await response.clientDisconnected()
        disconnected.fire()
      }
      defer { server.stop() }
      let transport = CurlTransport()
      let client = HTTPClient(baseURL: server.baseURL, transport: transport)
      let (echoes, producer) = AsyncStream<Data>.makeStream()
      let stopped = Signal()
      producer.onTermination = { _ in stopped.fire() }
      let outcome = await watched {
        do {
          let stream = try await client.bytes(
            Request<Data>(method: .post, path: "speak", body: .stream(echoes)),
            options: TransferOptions(timeout: .seconds(1)))
          for try await chunk in stream { producer.yield(chunk) }
          return "finished"
        } catch {
          return "\(error)"
        }
      }
      #expect(outcome == "\(HTTPError.timedOut)")
      await watched { await disconnected.wait() }
      await watched { await stopped.wait() }
      await watched { await transport.sleepsIdle() }
    }

    /// `identity, chunked` is not the `chunked` alone that is read raw: libcurl undoes it,
    /// and its Content-Length, which the transfer coding overrides, is no end to count to.
    @Test("an answer whose Transfer-Encoding overrides a Content-Length arrives whole")
    func transferEncodingOverridesLength() async throws {
      let sent = Signal()
      let server = try LoopbackServer(streamsRequestBodies: true) { request, response in
        var body = request.bodyChunks.makeAsyncIterator()
        _ = try await body.next()
        try await response.sendRaw(
          Data(
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: identity, chunked\r\nContent-Length: 5\r\n\r\n"
              + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n").utf8))
        sent.fire()
        while try await body.next() != nil {}
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      let (chunks, producer) = AsyncStream<Data>.makeStream()
      producer.yield(Data("hello?\n".utf8))
      Task {
        await sent.wait()
        producer.finish()
      }
      let stream = try await client.bytes(
        Request<Data>(method: .post, path: "ask", body: .stream(chunks)))
      var answer = Data()
      for try await chunk in stream { answer.append(chunk) }
      #expect(String(decoding: answer, as: UTF8.self) == "hello world")
    }

    @Test("a chunked answer's trailers reach its reader while the body is still open")
    func trailersBeforeTheBodyEnds() async throws {
      let server = try LoopbackServer(streamsRequestBodies: true) { request, response in
        var body = request.bodyChunks.makeAsyncIterator()
        _ = try await body.next()
        try await response.sendRaw(
          Data(
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
              + "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Checksum: abc\r\n\r\n").utf8))
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      let body = EndlessBody()
      let stream = try await client.bytes(
        Request<Data>(method: .post, path: "ask", body: .stream(body.chunks)))
      var answer = Data()
      for try await chunk in stream { answer.append(chunk) }
      #expect(answer == Data("hello world".utf8))
      #expect(await stream.trailers()["X-Checksum"] == "abc")
    }

    @Test(
      "a large chunked answer read slowly while the body is open arrives whole: paused and resumed, it is decoded once"
    )
    func slowReader() async throws {
      let size = 4 << 20
      let server = try LoopbackServer(streamsRequestBodies: true) { request, response in
        var body = request.bodyChunks.makeAsyncIterator()
        _ = try await body.next()
        try await response.writeHead()
        var sent = 0
        while sent < size {
          let count = min(size - sent, 10_007)  // chunks that do not line up with buffers
          try await response.write(patternBytes(count, from: sent))
          sent += count
        }
        try await response.finish()
      }
      defer { server.stop() }
      let transport = CurlTransport()
      let client = HTTPClient(baseURL: server.baseURL, transport: transport)
      let body = EndlessBody()
      let stream = try await client.bytes(
        Request<Data>(method: .post, path: "big", body: .stream(body.chunks)),
        options: TransferOptions(bufferSize: 32 * 1024))
      var count = 0
      var matches = true
      for try await chunk in stream {
        matches = matches && chunk == patternBytes(chunk.count, from: count)
        count += chunk.count
        await Task.yield()  // a reader slower than the wire
      }
      #expect(count == size)
      #expect(matches)
      await watched { await body.stopped.wait() }
      await watched { await transport.sleepsIdle() }
    }

    @Test("a malformed chunked answer fails its reader with a clear error, while the body is open")
    func malformedChunks() async throws {
      let server = try LoopbackServer(streamsRequestBodies: true) { request, response in
        var body = request.bodyChunks.makeAsyncIterator()
        _ = try await body.next()
        try await response.sendRaw(
          Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\n".utf8))
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      let body = EndlessBody()
      let stream = try await client.bytes(
        Request<Data>(method: .post, path: "ask", body: .stream(body.chunks)))
      let error = await #expect(throws: HTTPError.self) {
        for try await _ in stream {}
      }
      guard case .transport(let underlying) = error else {
        return #expect(Bool(false), "\(String(describing: error))")
      }
      #expect(underlying.code == .badServerResponse)
      #expect(underlying.localizedDescription.contains("chunked"))
      await watched { await body.stopped.wait() }
    }

    @Test(
      "a streamed body's request asks for no content coding, and gets one sent anyway as it came; naming one, it is decoded"
    )
    func contentCoding() async throws {
      // "hello" gzipped (Python's gzip.compress with mtime 0).
      let gzipped = Data(
        [
          0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9,
          0xc9, 0x07, 0x00, 0x86, 0xa6, 0x10, 0x36, 0x05, 0x00, 0x00, 0x00,
        ])
      // Chunked and gzipped, whatever the request asked for (as some servers do).
      let server = try LoopbackServer { request, response in
        let asked = request.headers["Accept-Encoding"] ?? "nothing"
        try await response.writeHead(headers: ["Content-Encoding": "gzip", "X-Asked": asked])
        try await response.write(gzipped)
        try await response.finish()
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      func body() -> RequestBody {
        .stream(
          AsyncStream<Data> { continuation in
            continuation.yield(Data("hi".utf8))
            continuation.finish()
          })
      }
      let plain = try await client.response(
        for: Request<Data>(method: .post, path: "a", body: body()))
      #expect(plain.response.headers["X-Asked"] == "nothing")
      #expect(plain.value == gzipped)
      #expect(plain.response.headers["Content-Encoding"] == "gzip")
      let named = try await client.response(
        for: Request<String>(
          method: .post, path: "b", headers: ["Accept-Encoding": "gzip"], body: body()))
      #expect(named.value == "hello")
      #expect(named.response.headers["X-Asked"] == "gzip")
    }
  }
#endif
