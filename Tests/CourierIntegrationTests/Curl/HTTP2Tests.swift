#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// HTTP/2 over TLS with CurlTransport, against nginx (where it is installed).
  @Suite(
    "CurlTransport over HTTP/2", .timeLimit(.minutes(1)),
    .enabled("needs nginx") { await NginxTLSServer.isInstalled && CurlTransport.isAvailable })
  struct HTTP2Tests {
    @Test("libcurl negotiates h2 over TLS, and concurrent requests share the connection")
    func negotiatesHTTP2() async throws {
      let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
      let server = try await NginxTLSServer.start(serving: ["big.bin": body])
      defer { server.stop() }
      let transport = CurlTransport(
        trust: ServerTrust(certificateAuthorities: [.file(server.certificate)]))
      let measured = Locked<[HTTPTimings]>([])
      let record: @Sendable (HTTPTimings) -> Void = { new in measured.withLock { $0.append(new) } }
      let options = {
        var options = TransportOptions()
        options.timings = record
        return options
      }()
      let url = server.url.appendingPathComponent("big.bin")
      let first = try await transport.send(
        TransportRequest(head: URLRequest(url: url)), options: options)
      #expect(first.head.status == 200)
      #expect(try await first.body.collect() == body)
      try await withThrowingTaskGroup(of: Data.self) { group in
        for _ in 0..<8 {
          group.addTask {
            let response = try await transport.send(
              TransportRequest(head: URLRequest(url: url)), options: options)
            return try await response.body.collect()
          }
        }
        for try await received in group { #expect(received == body) }
      }
      let timings = measured.withLock { $0 }
      #expect(timings.count == 9)
      #expect(timings.allSatisfy { $0.networkProtocol == "h2" })
      #expect(timings.dropFirst().allSatisfy { $0.reusedConnection == true })
    }

    /// A stream let go mid-body has its easy handle taken out of libcurl's multi handle. Put
    /// back for the next request (reset, as libcurl allows), libcurl 7.88 went on handing it
    /// the old stream's data: another request's body arrived inside this one's.
    @Test("streams let go mid-body on a shared connection leave nothing in the next requests")
    func streamsLetGo() async throws {
      let size = 2_000_000
      var files: [String: Data] = [:]
      for index in 0..<8 {
        files["f\(index).bin"] = Data(repeating: UInt8(index + 1), count: size)
      }
      let server = try await NginxTLSServer.start(serving: files)
      defer { server.stop() }
      let client = HTTPClient(
        baseURL: server.url,
        transport: CurlTransport(
          trust: ServerTrust(certificateAuthorities: [.file(server.certificate)])))
      for round in 0..<4 {
        try await withThrowingTaskGroup(of: (Int, Int, Set<UInt8>).self) { group in
          for index in 0..<8 {
            group.addTask {
              // As a hurried reader does: half the streams are left after their start.
              let stream = try await client.bytes(Request<Data>(path: "f\(index).bin?\(round)"))
              var (count, seen) = (0, Set<UInt8>())
              for try await chunk in stream {
                count += chunk.count
                seen.formUnion(chunk)
                if index.isMultiple(of: 2), count > 100_000 { break }
              }
              return (index, count, seen)
            }
          }
          for try await (index, count, seen) in group {
            #expect(seen == [UInt8(index + 1)], "round \(round), stream \(index): \(seen)")
            if !index.isMultiple(of: 2) { #expect(count == size, "round \(round), \(index)") }
          }
        }
      }
    }

    /// libcurl before 8.0 (Debian 12 has 7.88.1) switched a reused prior-knowledge connection
    /// to HTTP/2 a second time (curl issue 10634): the request after the first failed with
    /// `networkConnectionLost`, and so did every later one, on the same broken connection.
    @Test(
      "with prior knowledge over cleartext, every request is answered, one after another or at once"
    )
    func priorKnowledgeRequests() async throws {
      let server = try await NginxTLSServer.start(
        serving: ["a.txt": Data("ok".utf8)], cleartext: true)
      defer { server.stop() }
      var configuration = CurlTransport.Configuration()
      configuration.httpVersion = .http2PriorKnowledge
      let client = HTTPClient(
        baseURL: server.url, transport: CurlTransport(configuration: configuration))
      for index in 0..<3 {
        #expect(try await client.send(Request<String>(path: "a.txt?\(index)")) == "ok")
      }
      try await withThrowingTaskGroup(of: String.self) { group in
        for index in 0..<6 {
          group.addTask { try await client.send(Request<String>(path: "a.txt?c\(index)")) }
        }
        for try await text in group { #expect(text == "ok") }
      }
    }

    /// `count` response fields of 4,000 bytes each, as nginx directives.
    static func bigFields(_ count: Int) -> String {
      (0..<count).map { "add_header X-Big-\($0) \"\(String(repeating: "x", count: 4_000))\";" }
        .joined(separator: " ")
    }

    @Test(
      "a header block past libcurl's limit over HTTP/2 is badServerResponse, as over HTTP/1.1; an 8 KB one is read",
      // 2 fields, 8 KB: with libcurl 7.88 a header block of 48 KB or more within its limit
      // stalled over HTTP/2 until the deadline, now and then (left, see the closing notes).
      arguments: [(80, false), (2, true)])
    func oversizedHeaderBlock(fields: Int, read: Bool) async throws {
      let server = try await NginxTLSServer.start(
        serving: ["a.txt": Data("ok".utf8)], directives: Self.bigFields(fields))
      defer { server.stop() }
      var configuration = CurlTransport.Configuration()
      configuration.trust = ServerTrust(certificateAuthorities: [.file(server.certificate)])
      let client = HTTPClient(
        baseURL: server.url, transport: CurlTransport(configuration: configuration))
      guard !read else {
        let response = try await client.response(for: Request<String>(path: "a.txt"))
        #expect(response.value == "ok" && response.response.headers["X-Big-1"]?.count == 4_000)
        return
      }
      let error = await #expect(throws: HTTPError.self) {
        try await client.send(Request<String>(path: "a.txt"))
      }
      // Not a lost connection, which RetryPolicy would send again: the server sent too much.
      #expect(error?.urlErrorCode == .badServerResponse, "\(String(reflecting: error))")
    }

    @Test("with prior knowledge over TLS, a connection is reused as usual")
    func priorKnowledgeOverTLS() async throws {
      let server = try await NginxTLSServer.start(serving: ["a.txt": Data("ok".utf8)])
      defer { server.stop() }
      var configuration = CurlTransport.Configuration()
      configuration.httpVersion = .http2PriorKnowledge
      configuration.trust = ServerTrust(certificateAuthorities: [.file(server.certificate)])
      let transport = CurlTransport(configuration: configuration)
      let measured = Locked<[HTTPTimings]>([])
      var options = TransportOptions()
      options.timings = { new in measured.withLock { $0.append(new) } }
      for index in 0..<3 {
        let url = server.url.appendingPathComponent("a.txt").appending(
          queryItems: [URLQueryItem(name: "n", value: "\(index)")])
        let response = try await transport.send(
          TransportRequest(head: URLRequest(url: url)), options: options)
        #expect(try await response.body.collect() == Data("ok".utf8))
      }
      let timings = measured.withLock { $0 }
      #expect(timings.map(\.networkProtocol) == ["h2", "h2", "h2"])
      #expect(timings.map(\.reusedConnection) == [false, true, true])
    }
  }
#endif
