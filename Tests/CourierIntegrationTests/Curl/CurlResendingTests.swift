#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// libcurl sends a request again on a fresh connection when the reused connection it went out
  /// on closes before any answer: right for a GET, wrong for a POST the server may have acted on.
  @Suite("CurlTransport: a reused connection that closes with no answer", .timeLimit(.minutes(1)))
  struct CurlResendingTests {
    /// A server that answers `GET /warm` (so the next request reuses its connection), counts
    /// every other request, and closes the connection without an answer on the first of them.
    private func server(received: Locked<[String]>, bodies: Locked<[Data]> = Locked([])) throws
      -> LoopbackServer
    {
      try LoopbackServer { request, response in
        guard request.path != "/warm" else { return try await response.send(text: "warm") }
        bodies.withLock { $0.append(request.body) }
        let count = received.withLock {
          $0.append(request.method)
          return $0.count
        }
        if count == 1 { response.closeConnection() } else { try await response.send(text: "ok") }
      }
    }

    @Test(
      "a request that is not idempotent is not sent again: networkConnectionLost, one arrival",
      arguments: [("POST", false), ("POST", true), ("PATCH", false)])
    func notIdempotent(method: String, withBody: Bool) async throws {
      let received = Locked<[String]>([])
      let server = try server(received: received)
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      _ = try await client.send(Request<String>(path: "warm"))
      let error = await #expect(throws: HTTPError.self) {
        try await client.send(
          Request<String>(
            method: HTTPMethod(rawValue: method), path: "orders",
            body: withBody ? .data(Data("{}".utf8)) : nil))
      }
      guard case .transport(let urlError) = error else {
        Issue.record("expected a transport error, got \(String(describing: error))")
        return
      }
      #expect(urlError.code == .networkConnectionLost)
      #expect(received.withLock { $0 } == [method])
    }

    @Test(
      "an idempotent request's body in memory or in a file is sent again whole, and answered",
      arguments: [false, true])
    func idempotentWithBody(fromFile: Bool) async throws {
      let received = Locked<[String]>([])
      let bodies = Locked<[Data]>([])
      let server = try server(received: received, bodies: bodies)
      defer { server.stop() }
      let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let file = scratch.file("payload")
      try payload.write(to: file)
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      _ = try await client.send(Request<String>(path: "warm"))
      let body: RequestBody = fromFile ? .file(file) : .data(payload)
      #expect(try await client.send(Request<String>(method: .put, path: "doc", body: body)) == "ok")
      #expect(received.withLock { $0 } == ["PUT", "PUT"])
      #expect(bodies.withLock { $0.last } == payload)
    }

    @Test("an idempotent request whose body is a stream cannot be sent again: one arrival")
    func idempotentWithStream() async throws {
      let received = Locked<[String]>([])
      let server = try server(received: received)
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      _ = try await client.send(Request<String>(path: "warm"))
      let chunks = AsyncStream<Data> { continuation in
        continuation.yield(Data("{}".utf8))
        continuation.finish()
      }
      let error = await #expect(throws: HTTPError.self) {
        try await client.send(
          Request<String>(method: .put, path: "doc", body: .stream(chunks, length: 2)))
      }
      guard case .transport(let urlError) = error else {
        Issue.record("expected a transport error, got \(String(describing: error))")
        return
      }
      #expect(urlError.code == .networkConnectionLost)
      #expect(received.withLock { $0 } == ["PUT"])
    }

    @Test("an idempotent request is sent again on a fresh connection, and answered")
    func idempotent() async throws {
      let received = Locked<[String]>([])
      let server = try server(received: received)
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      _ = try await client.send(Request<String>(path: "warm"))
      #expect(try await client.send(Request<String>(method: .delete, path: "orders/7")) == "ok")
      #expect(received.withLock { $0 } == ["DELETE", "DELETE"])
    }
  }

  /// What FoundationNetworking (URLSession on Linux), whose libcurl Courier cannot reach, does in
  /// the same case: PlatformNotes says so. When these fail, it has changed, and so must the note.
  @Suite("What URLSession on Linux does when a reused connection closes with no answer")
  struct FoundationNetworkingResendingTests {
    private func server(received: Locked<Int>) throws -> LoopbackServer {
      try LoopbackServer { request, response in
        guard request.path != "/warm" else { return try await response.send(text: "warm") }
        received.withLock { $0 += 1 }
        response.closeConnection()
      }
    }

    @Test("a POST with no body is sent twice; one with a body waits for its deadline")
    func resends() async throws {
      let received = Locked(0)
      let server = try server(received: received)
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: URLSessionTransport())
      _ = try await client.send(Request<String>(path: "warm"))
      await #expect(throws: HTTPError.self) {
        try await client.send(Request<String>(method: .post, path: "orders"))
      }
      #expect(received.withLock { $0 } == 2)
      _ = try await client.send(Request<String>(path: "warm"))
      // The second sending is a head without its body, which the server waits for.
      await #expect(throws: HTTPError.timedOut) {
        try await client.send(
          Request<String>(
            method: .post, path: "orders", body: .data(Data("{}".utf8)),
            timeout: .milliseconds(500)))
      }
      #expect(received.withLock { $0 } == 3)
    }
  }
#endif
