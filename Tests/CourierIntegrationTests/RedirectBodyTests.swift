import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@Suite("A redirect's bodies: the request's and the redirect's own", .timeLimit(.minutes(1)))
struct RedirectBodyTests {
  /// The fields that describe a request's body (Fetch's "request-body-header names").
  static let bodyFields = [
    "Content-Type", "Content-Encoding", "Content-Language", "Content-Location",
  ]

  /// Redirects `/start` to `/landing` with `status`; `/landing` answers with its method, the
  /// body fields it got, and its body's length.
  func server(status: Int) throws -> LoopbackServer {
    try LoopbackServer { request, response in
      guard request.path == "/landing" else {
        return try await response.send(status: status, headers: ["Location": "/landing"])
      }
      let fields = Self.bodyFields.filter { request.headers[$0] != nil }
      try await response.send(
        text: "\(request.method) \(fields.joined(separator: ",")) \(request.body.count)")
    }
  }

  /// A gzip-coded German body sent with `method`, its fields all set.
  func request(_ method: HTTPMethod) -> Request<String> {
    Request(
      method: method, path: "start",
      headers: [
        "Content-Encoding": "gzip", "Content-Language": "de", "Content-Location": "/drafts/1",
      ],
      body: .data(Data("abc".utf8), contentType: "text/plain"))
  }

  @Test(
    "a request turned into a GET sends none of its body's fields (a GET saying gzip has no body)",
    arguments: [(303, HTTPMethod.put), (303, .post), (302, .post), (301, .post)])
  func bodyFieldsDropped(status: Int, method: HTTPMethod) async throws {
    let server = try server(status: status)
    defer { server.stop() }
    let answer = try await HTTPClient(baseURL: server.baseURL).send(request(method))
    #expect(answer == "GET  0", "\(status) \(method.rawValue)")
  }

  @Test("307 and 308 send the body again with every one of its fields (the good path)")
  func bodyFieldsKept() async throws {
    for status in [307, 308] {
      let server = try server(status: status)
      defer { server.stop() }
      let answer = try await HTTPClient(baseURL: server.baseURL).send(request(.put))
      #expect(answer == "PUT \(Self.bodyFields.joined(separator: ",")) 3", "\(status)")
    }
  }

  /// A hostile redirect: `/start` answers 302 with a body of `length` bytes, or chunked and
  /// without end until the client leaves, counting the bytes it got out in `written`.
  func redirecting(length: Int?, written: Locked<Int>) throws -> LoopbackServer {
    try LoopbackServer { request, response in
      guard request.path == "/start" else { return try await response.send(text: "landed") }
      try await response.writeHead(
        status: 302, headers: ["Location": "/landing"], contentLength: length)
      let chunk = Data(count: 256 * 1024)
      while !response.isClientDisconnected, written.withLock({ $0 }) < length ?? 256 << 20 {
        try await response.write(chunk)
        written.withLock { $0 += chunk.count }
      }
    }
  }

  @Test("a redirect's body past the size limit is no responseTooLarge: it is not the answer")
  func redirectBodyPastLimit() async throws {
    let written = Locked(0)
    let server = try redirecting(length: 512 << 10, written: written)
    defer { server.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 128 << 10
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    #expect(try await client.send(Request<String>(path: "start")) == "landed")
  }

  @Test("a redirect's body without end is cut, not read whole (the client's own transport)")
  func redirectBodyWithoutEnd() async throws {
    let written = Locked(0)
    let server = try redirecting(length: nil, written: written)
    defer { server.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = nil
    configuration.timeout = .seconds(20)
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    // FoundationNetworking reads a redirect's whole body itself before it hands its head over
    // (the deadline bounds it): only CurlTransport, Linux's default, shows the client's rule.
    guard sendsOverCurl(client) else { return }
    #expect(try await client.send(Request<String>(path: "start")) == "landed")
    // What the socket buffers took on the way is all that went: far from the 256 MiB sent
    // to a client that reads it whole.
    #expect(written.withLock { $0 } < 8 << 20)
  }

  /// A client on `clock`, with no deadline and an idle timeout of an hour: only the drain's
  /// grace can end a redirect's slow body.
  func client(_ server: LoopbackServer, clock: ManualClock) -> HTTPClient {
    var configuration = HTTPClient.Configuration(timeout: nil, idleTimeout: .seconds(3600))
    configuration.clock = clock
    return HTTPClient(
      baseURL: server.baseURL, configuration: configuration, transport: ownTransport())
  }

  @Test("a redirect whose body trickles is followed after its grace, not at the idle timeout")
  func redirectBodyTrickling() async throws {
    let server = try LoopbackServer { request, response in
      guard request.path == "/start" else { return try await response.send(text: "landed") }
      try await response.writeHead(status: 302, headers: ["Location": "/landing"])
      // A first byte, then nothing more for as long as the client stays.
      try await response.write(Data("<".utf8))
      await response.clientDisconnected()
    }
    defer { server.stop() }
    let clock = ManualClock()
    let client = client(server, clock: clock)
    #if canImport(FoundationNetworking)
      // FoundationNetworking reads a redirect's whole body itself before it hands its head
      // over (the idle timeout bounds it): only CurlTransport shows the client's rule here.
      guard sendsOverCurl(client) else { return }
    #endif
    let call = Task { try await client.send(Request<String>(path: "start")) }
    await clock.sleepers(atLeast: 1)  // the drain's grace, the only wait on the clock
    clock.advance(by: .seconds(1))
    #expect(try await call.value == "landed")
    #expect(server.requestCount == 2)
  }

  @Test("a redirect whose body comes with its head is drained: its connection carries the next hop")
  func redirectBodyWhole() async throws {
    let server = try LoopbackServer { request, response in
      guard request.path == "/start" else { return try await response.send(text: "landed") }
      try await response.send(
        status: 302, headers: ["Location": "/landing"], body: Data(count: 20_000))
    }
    defer { server.stop() }
    // No time passes on the clock: the grace never runs out, and the body is read to its end.
    let client = client(server, clock: ManualClock())
    #expect(try await client.send(Request<String>(path: "start")) == "landed")
    #expect(server.requestCount == 2)
    #expect(server.connectionCount == 1)
  }

  @Test("StubTransport keeps the rule: a redirect's body past the limit is no responseTooLarge")
  func stubRedirectBodyPastLimit() async throws {
    let stub = StubTransport()
      .on(
        .get, "start",
        StubResponse(status: 302, headers: ["Location": "/landing"], body: Data(count: 2 << 20))
      )
      .on(.get, "landing", StubResponse(text: "landed"))
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 1 << 20
    let client = HTTPClient(
      baseURL: URL(string: "https://api.test")!, configuration: configuration, transport: stub)
    #expect(try await client.send(Request<String>(path: "start")) == "landed")
    // The answer itself keeps the limit (the good path's twin).
    let big = StubTransport().on(.get, "big", StubResponse(body: Data(count: 2 << 20)))
    let limited = HTTPClient(
      baseURL: URL(string: "https://api.test")!, configuration: configuration, transport: big)
    await #expect(throws: HTTPError.responseTooLarge(limit: 1 << 20)) {
      try await limited.send(Request<Data>(path: "big"))
    }
  }
}
