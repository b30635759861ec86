#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// What CurlTransport does beyond the contract (which TransportConformanceTests holds it to;
  /// as Linux's default transport, it runs the whole suite under plain `swift test`).
  @Suite("CurlTransport", .timeLimit(.minutes(2)))
  struct CurlTransportTests {
    @Test("the system's libcurl is found, and says what it supports")
    func library() {
      #expect(CurlTransport.isAvailable)
      #expect(CurlTransport.libraryVersion?.hasPrefix("libcurl/") == true)
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
          URLRequest(url: url), options: TransportOptions(collectsBody: true, bufferSize: 100_000))
      }
      #expect(error == .responseTooLarge(limit: 100_000))
    }

    @Test("a stream of unknown length goes chunked, one of known length with Content-Length")
    func streamedFraming() async throws {
      let server = try LoopbackServer { request, response in
        let framing = request.headers["Transfer-Encoding"] ?? request.headers["Content-Length"]
        try await response.send(text: "\(framing ?? "-") \(request.body.count)")
      }
      defer { server.stop() }
      let transport = CurlTransport()
      for (length, expected) in [(nil, "chunked 300000"), (300_000, "300000 300000")] {
        var request = TransportRequest(head: URLRequest(url: server.baseURL))
        request.head.httpMethod = "PUT"
        request.body = .stream(
          AsyncStream { continuation in
            for _ in 0..<3 { continuation.yield(Data(count: 100_000)) }
            continuation.finish()
          }, length: length.map(Int64.init))
        let response = try await transport.send(request, options: .init())
        #expect(String(decoding: try await response.body.collect(), as: UTF8.self) == expected)
      }
    }

    @Test("a Content-Encoding libcurl cannot undo passes through as it came, with its header")
    func unknownCoding() async throws {
      let body = Data("raw \u{0}\u{1} bytes".utf8)
      let server = try LoopbackServer { request, response in
        let coding = request.path == "/mixed" ? "gzip, x-unknown" : "x-unknown"
        try await response.send(headers: ["Content-Encoding": coding], body: body)
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      for path in ["plain", "mixed"] {
        let answer = try await client.response(for: Request<Data>(path: path))
        #expect(answer.value == body, "\(path)")
        #expect(answer.response.headers["Content-Encoding"]?.hasSuffix("x-unknown") == true)
      }
      let streamed = try await client.bytes(Request<Data>(path: "plain"))
      var received = Data()
      for try await chunk in streamed { received.append(contentsOf: chunk) }
      #expect(received == body)
    }

    /// FoundationNetworking has its libcurl decode every response and offers no way to turn
    /// it off, so the transfer fails where CurlTransport hands the body over.
    @Test("URLSessionTransport on Linux fails on such a body: the platform's limit, written down")
    func unknownCodingOverURLSession() async throws {
      let server = try LoopbackServer { _, response in
        try await response.send(headers: ["Content-Encoding": "x-unknown"], body: Data("a".utf8))
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: URLSessionTransport())
      let error = await #expect(throws: HTTPError.self) {
        try await client.send(Request<Data>(path: "p"))
      }
      #expect(error?.urlErrorCode != nil)
    }

    /// A server that writes `wire` as its whole response, and a client of it over CurlTransport.
    func rawServer(_ wire: String) throws -> (LoopbackServer, HTTPClient) {
      let server = try LoopbackServer { _, response in try await response.sendRaw(Data(wire.utf8)) }
      return (server, HTTPClient(baseURL: server.baseURL, transport: CurlTransport()))
    }

    /// (FoundationNetworking crashes the process on this response: PlatformNotes.)
    @Test("a chunked body's trailers come after it: on the response, and after a byte stream")
    func trailers() async throws {
      let (server, client) = try rawServer(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum, X-Count\r\n"
          + "Connection: close\r\n\r\n5\r\nhello\r\n0\r\nX-Checksum: abc\r\n"
          + "X-Count:  5 \r\n\r\n")
      defer { server.stop() }
      let answer = try await client.response(for: Request<String>(path: "t"))
      #expect(answer.value == "hello")
      #expect(answer.response.headers["X-Checksum"] == nil)
      #expect(answer.response.trailers == ["X-Checksum": "abc", "X-Count": "5"])
      let stream = try await client.bytes(Request<Data>(path: "t"))
      var body = Data()
      for try await chunk in stream { body.append(chunk) }
      #expect(body == Data("hello".utf8))
      #expect(await stream.trailers() == ["X-Checksum": "abc", "X-Count": "5"])
    }

    @Test("a body without trailers has none, buffered or streamed")
    func noTrailers() async throws {
      let (server, client) = try rawServer(
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
      defer { server.stop() }
      #expect(try await client.response(for: Request<String>(path: "t")).response.trailers.isEmpty)
      let stream = try await client.bytes(Request<Data>(path: "t"))
      for try await _ in stream {}
      #expect(await stream.trailers().isEmpty)
    }

    @Test("a transfer coding whose last is not chunked: the body runs to the close, as it came")
    func unknownTransferCoding() async throws {
      let (server, client) = try rawServer(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: x-unknown\r\nConnection: close\r\n\r\n"
          + "raw body bytes")
      defer { server.stop() }
      #expect(try await client.send(Request<String>(path: "t")) == "raw body bytes")
    }

    @Test("which codings libcurl decodes: gzip and deflate always, nothing unknown")
    func decodedCodings() {
      #expect(Curl.decodes(["gzip"]))
      #expect(Curl.decodes(["GZIP, deflate", "identity"]))
      #expect(!Curl.decodes(["x-unknown"]))
      #expect(!Curl.decodes(["gzip, compress"]))
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
        TransportRequest.get(server.baseURL.appendingPathComponent("trailers")),
        options: TransportOptions())
      #expect(streamed.head.status == 200)
      #expect(streamed.head.headers["X-Trailer"] == nil)
      #expect(try await streamed.body.collect() == Data("ok".utf8))
    }

    /// `data` compressed by `gzip`.
    private func gzipped(_ data: Data) async throws -> Data {
      try await ChildProcess.shell("gzip -c", input: data)
    }
  }

  extension TransportRequest {
    /// A GET of `url`, as the transport contract takes it.
    static func get(_ url: URL) -> TransportRequest {
      TransportRequest(head: URLRequest(url: url))
    }
  }
#endif
