import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("A failing server gives a typed error", .timeLimit(.minutes(1)))
struct FailureTests {
  struct TMDBError: Decodable, Equatable {
    var statusCode: Int
    var statusMessage: String
    enum CodingKeys: String, CodingKey {
      case statusCode = "status_code"
      case statusMessage = "status_message"
    }
  }

  @Test("404 with a JSON error body is unacceptableStatus whose payload decodes")
  func notFound() async throws {
    let loopback = try Loopback { _, response in
      try await response.send(
        status: 404, json: #"{"status_code":34,"status_message":"Not found."}"#)
    }
    defer { loopback.stop() }
    let client = loopback.client
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Movie>(path: "movie/999"))
    }
    guard case .unacceptableStatus(let response) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(response.status == 404)
    #expect(response.headers["Content-Type"] == "application/json")
    #expect(response.url?.path == "/3/movie/999")
    #expect(
      error?.decodeBody(as: TMDBError.self)
        == TMDBError(statusCode: 34, statusMessage: "Not found."))
  }

  @Test("500 is unacceptableStatus with the body in the description")
  func serverError() async throws {
    let loopback = try Loopback { _, response in
      try await response.send(status: 500, text: "database on fire")
    }
    defer { loopback.stop() }
    let client = loopback.client
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Movie>(path: "m"))
    }
    #expect(error?.status == 500)
    #expect(error?.description.contains("database on fire") == true)
  }

  @Test("invalid JSON is decodingFailed, keeping the response")
  func invalidJSON() async throws {
    let loopback = try Loopback { _, response in
      try await response.send(json: #"{"id": 1, "title": }"#)
    }
    defer { loopback.stop() }
    let client = loopback.client
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Movie>(path: "m"))
    }
    guard case .decodingFailed(_, let response) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(response.text == #"{"id": 1, "title": }"#)
  }

  @Test("a handler slower than a 200 ms timeout is timedOut, and the server sees the client leave")
  func timeout() async throws {
    let gone = Signal()
    let loopback = try Loopback { _, response in
      await response.clientDisconnected()
      gone.fire()
    }
    defer { loopback.stop() }
    let client = loopback.client
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "slow", timeout: .milliseconds(200)))
    }
    guard case .timedOut = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    await watched { await gone.wait() }
  }

  @Test("a connection closed mid-body is a transport error")
  func closedMidBody() async throws {
    let loopback = try Loopback { _, response in
      try await response.writeHead(status: 200, contentLength: 1000)
      try await response.write(Data(repeating: 65, count: 10))
      response.closeConnection()
    }
    defer { loopback.stop() }
    let client = loopback.client
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "cut"))
    }
    guard case .transport = error else {
      Issue.record("\(String(describing: error))")
      return
    }
  }

  @Test("a connection closed before any reply is an empty reply (zeroByteResource)")
  func emptyReply() async throws {
    let loopback = try Loopback { _, response in
      response.closeConnection()
    }
    defer { loopback.stop() }
    let client = loopback.client
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "x"))
    }
    #expect(error?.urlErrorCode == .zeroByteResource, "\(String(describing: error))")
    #expect(error?.description.contains("empty reply") == true)
  }

  @Test("RetryPolicy retries a GET after an empty reply, as it says; a POST it does not")
  func emptyReplyRetried() async throws {
    let arrivals = Locked(0)
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [RetryPolicy(baseDelay: .zero)]
    let loopback = try Loopback(configuration: configuration) { _, response in
      let arrival = arrivals.withLock {
        $0 += 1
        return $0
      }
      if arrival == 1 || arrival == 3 {
        response.closeConnection()
      } else {
        // Closed after it, so that the POST goes on a fresh connection: on a reused one, an
        // empty reply may be a connection the server closed as it went idle (CurlResendingTests).
        try await response.send(headers: ["Connection": "close"], text: "back")
      }
    }
    defer { loopback.stop() }
    #expect(try await loopback.client.send(Request<String>(path: "x")) == "back")
    #expect(arrivals.withLock { $0 } == 2)
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(Request<String>(method: .post, path: "x"))
    }
    #expect(error?.urlErrorCode == .zeroByteResource, "\(String(describing: error))")
    #expect(arrivals.withLock { $0 } == 3)
  }

  @Test("a refused connection is a transport error with cannotConnectToHost")
  func refused() async throws {
    let port = try LoopbackServer.closedPort()
    let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "x"))
    }
    guard case .transport(let urlError) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(urlError.code == .cannotConnectToHost)
    #expect(error?.description.contains("127.0.0.1") == true)
  }

  @Test("a body over the limit is responseTooLarge, one under it is not")
  func oversized() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 64 * 1024
    let loopback = try Loopback(configuration: configuration) { request, response in
      let size = request.path.hasSuffix("big") ? 64 * 1024 + 1 : 64 * 1024
      try await response.send(body: Data(repeating: 120, count: size))
    }
    defer { loopback.stop() }
    let client = loopback.client
    let small = try await client.send(Request<Data>(path: "small"))
    #expect(small.count == 64 * 1024)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "big"))
    }
    guard case .responseTooLarge(let limit) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(limit == 64 * 1024)
  }

  @Test("a Content-Length over the limit fails before the body is read")
  func announcedTooLarge() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 1024 * 1024
    let gone = Signal()
    let loopback = try Loopback(configuration: configuration) { _, response in
      try await response.writeHead(status: 200, contentLength: 100 * 1024 * 1024)
      // A client that refuses the head at once may close before these bytes are all out.
      try? await response.write(Data(count: 64 * 1024))
      await response.clientDisconnected()  // the other 99.9 MB are never asked for
      gone.fire()
    }
    defer { loopback.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(Request<Data>(path: "huge"))
    }
    #expect(error == .responseTooLarge(limit: 1024 * 1024))
    await watched { await gone.wait() }
  }

  @Test("a HEAD answer announcing more than the limit is no body over it: it is the answer")
  func headOverLimit() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 1024
    let loopback = try Loopback(configuration: configuration) { request, response in
      #expect(request.method == "HEAD")
      try await response.writeHead(status: 200, contentLength: 100 * 1024 * 1024)
    }
    defer { loopback.stop() }
    let answer = try await loopback.client.response(
      for: Request<Data>(method: .head, path: "big"))
    #expect(answer.status == 200)
    #expect(answer.headers["Content-Length"] == String(100 * 1024 * 1024))
  }

  @Test("an endless chunked body is cut off at the limit, as bytes arrive")
  func endlessBody() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 256 * 1024
    configuration.timeout = nil  // no deadline: only the limit can end this
    let loopback = try Loopback(configuration: configuration) { _, response in
      try await response.writeHead(status: 200)  // chunked, no length
      let chunk = Data(repeating: 120, count: 16 * 1024)
      for _ in 0..<100_000 where !response.isClientDisconnected {  // 1.6 GB if nobody stops it
        try await response.write(chunk)
      }
    }
    defer { loopback.stop() }  // also ends a handler still blocked in a write
    let client = loopback.client
    let outcome = await watched {
      await Result { () async throws(HTTPError) in
        try await client.send(Request<Data>(path: "endless"))
      }
    }
    guard case .failure(let error)? = outcome else {
      Issue.record("expected responseTooLarge, got \(String(describing: outcome))")
      return
    }
    #expect(error == .responseTooLarge(limit: 256 * 1024))
  }

  @Test("an endless stream nobody has read yet is cut off at the limit: the server sees it go")
  func endlessUnreadStream() async throws {
    let body = EndlessBody(first: "", unit: "x")
    let loopback = try Loopback { _, response in try await body.send(response) }
    defer { loopback.stop() }
    let stream = try await loopback.client.bytes(
      Request<Data>(path: "endless"), options: TransferOptions(maximumBytes: 256 * 1024))
    // Nobody reads yet: CurlTransport would pause at its buffer and URLSession would spool
    // the whole body to disk, unless the limit stops the transfer at the transport's side.
    #expect(await body.clientLetGo())
    var read = 0
    await #expect(throws: HTTPError.responseTooLarge(limit: 256 * 1024)) {
      for try await chunk in stream { read += chunk.count }
    }
    #expect(read <= 256 * 1024)
  }

  @Test("a chunked body is read whole")
  func chunked() async throws {
    let loopback = try Loopback { _, response in
      try await response.writeHead(status: 200, headers: ["Content-Type": "text/plain"])
      for word in ["one ", "two ", "three"] {
        try await response.write(Data(word.utf8))
      }
      try await response.finish()
    }
    defer { loopback.stop() }
    let client = loopback.client
    let text = try await client.send(Request<String>(path: "words"))
    #expect(text == "one two three")
  }
}
