import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A loopback handler answered by the stub in memory, read as a client reads a socket.
@Suite("StubTransport serves loopback handlers in memory")
struct StubServingTests {
  let client = { (stub: StubTransport) in
    HTTPClient(baseURL: URL(string: "https://api.test/3")!, transport: stub)
  }

  /// Expects a GET of `path` through `stub` to fail with `HTTPError.transport` of `code`.
  func expectTransportError(
    _ code: URLError.Code, sending path: String, to stub: StubTransport,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    let error = await #expect(throws: HTTPError.self, sourceLocation: sourceLocation) {
      try await client(stub).send(Request<Data>(path: path))
    }
    guard case .transport(let urlError)? = error else {
      Issue.record(
        "expected a transport error, got \(String(describing: error))",
        sourceLocation: sourceLocation)
      return
    }
    #expect(urlError.code == code, sourceLocation: sourceLocation)
  }

  @Test("the handler sees the request as a server would, and its chunked answer arrives whole")
  func servedInMemory() async throws {
    let seen = Locked<LoopbackRequest?>(nil)
    let stub = StubTransport().serving { request, response in
      seen.withLock { $0 = request }
      try await response.writeHead(headers: ["Content-Type": "text/plain"])
      for part in ["one ", "two"] { try await response.write(Data(part.utf8)) }
      try await response.finish()
    }
    let endpoint = Request<String>(
      method: .post, path: "movie/1/rating", query: ["q": "a b"], body: .data(Data("7".utf8)))
    #expect(try await client(stub).send(endpoint) == "one two")
    let request = try #require(seen.withLock { $0 })
    #expect(request.method == "POST")
    #expect(request.path == "/3/movie/1/rating")
    #expect(request.queryValues("q") == ["a b"])
    #expect(request.headers["Host"] == "api.test")
    #expect(request.body == Data("7".utf8))
  }

  @Test("a route answers before the served handler, which takes the rest")
  func routesFirst() async throws {
    let stub = StubTransport()
      .on(.get, "/canned", StubResponse(text: "canned"))
      .serving { _, response in try await response.send(text: "served") }
    #expect(try await client(stub).send(Request<String>(path: "canned")) == "canned")
    #expect(try await client(stub).send(Request<String>(path: "other")) == "served")
  }

  @Test("a body cut short by the handler fails as a lost connection")
  func truncated() async throws {
    let stub = StubTransport().serving { _, response in
      try await response.writeHead(contentLength: 10)
      try await response.write(Data("first".utf8))
      response.closeConnection()
    }
    await expectTransportError(.networkConnectionLost, sending: "cut", to: stub)
  }

  @Test("a malformed head is a bad server response, not a crash or a hang")
  func malformed() async throws {
    let stub = StubTransport().serving { _, response in
      try await response.sendRaw(
        Data("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nBroken\r\n\r\n".utf8))
    }
    await expectTransportError(.badServerResponse, sending: "bad", to: stub)
  }

  @Test("HEAD and 204 answers have no body, whatever their Content-Length says")
  func noBody() async throws {
    let stub = StubTransport().serving { request, response in
      if request.method == "HEAD" {
        try await response.send(headers: ["X-Size": "3"], text: "abc")
      } else {
        try await response.send(status: 204)
      }
    }
    let head = try await stub.send(
      TransportRequest(
        head: {
          var head = URLRequest(url: URL(string: "https://api.test/x")!)
          head.httpMethod = "HEAD"
          return head
        }()), options: TransportOptions())
    #expect(head.head.headers["X-Size"] == "3")
    #expect(try await head.body.collect().isEmpty)
    let empty = try await stub.send(
      TransportRequest(head: URLRequest(url: URL(string: "https://api.test/y")!)),
      options: TransportOptions())
    #expect(empty.head.status == 204)
    #expect(try await empty.body.collect().isEmpty)
  }

  @Test("the Testing article's stub: a route first, then the served handler cutting its body short")
  func readmeSnippet() async throws {
    let stub = StubTransport()
      .on(.get, "/movie/popular", .json(#"{"page":1,"results":[]}"#))
      .serving { request, response in
        try await response.writeHead(contentLength: 10)
        try await response.write(Data("first".utf8))
        // The client gets HTTPError.transport(URLError(.networkConnectionLost)).
        response.closeConnection()
      }
    let page = try await client(stub).send(Request<Data>(path: "movie/popular"))
    #expect(String(decoding: page, as: UTF8.self) == #"{"page":1,"results":[]}"#)
    await expectTransportError(.networkConnectionLost, sending: "movie/1", to: stub)
  }
}
