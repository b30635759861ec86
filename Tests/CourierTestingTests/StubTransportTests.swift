import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("StubTransport")
struct StubTransportTests {
  let base = URL(string: "https://api.test/3")!

  func request(_ method: HTTPMethod = .get, _ path: String) -> URLRequest {
    var request = URLRequest(url: base.appendingPathComponent(path))
    request.httpMethod = method.rawValue
    return request
  }

  @Test("routes by method and path, matching the full path or its end at a slash")
  func routing() async throws {
    let stub = StubTransport()
      .on(.get, "/movie/popular", StubResponse(text: "get"))
      .on(.post, "movie/popular", StubResponse(status: 201, text: "post"))
    #expect(try await stub.send(request(.get, "movie/popular")).body == Data("get".utf8))
    #expect(try await stub.send(request(.post, "movie/popular")).status == 201)
    let fullPath = StubTransport().on(.get, "/3/movie/popular", .status(200))
    #expect(try await fullPath.send(request(.get, "movie/popular")).status == 200)
    let notAtBoundary = StubTransport().on(.get, "popular", .status(200))
    #expect(try await notAtBoundary.send(request(.get, "moviepopular")).status == 404)
  }

  @Test("a redirect route is answered as it is; the client follows it, each hop recorded")
  func redirectsAreTheClients() async throws {
    let stub = StubTransport()
      .on(.get, "old", StubResponse(status: 301, headers: ["Location": "/3/new"]))
      .on(.get, "new", StubResponse(text: "moved here"))
    #expect(try await stub.send(request(.get, "old")).status == 301)
    let client = HTTPClient(baseURL: base, transport: stub)
    #expect(try await client.send(Request<String>(path: "old")) == "moved here")
    #expect(stub.requests.compactMap(\.url?.path) == ["/3/old", "/3/old", "/3/new"])
  }

  @Test("an unrouted request is a 404 naming the request")
  func unrouted() async throws {
    let response = try await StubTransport().send(request(.delete, "movie/1"))
    #expect(response.status == 404)
    #expect(response.text == "StubTransport has no route for DELETE /3/movie/1")
  }

  @Test("the first matching route wins; the fallback answers the rest")
  func fallback() async throws {
    let stub = StubTransport()
      .on(.get, "/a", StubResponse(text: "first"))
      .on(.get, "/a", StubResponse(text: "second"))
      .fallback { request throws(HTTPError) in StubResponse(text: "fallback \(request.url!.path)") }
    #expect(try await stub.send(request(.get, "a")).text == "first")
    #expect(try await stub.send(request(.get, "b")).text == "fallback /3/b")
  }

  @Test("a failing route throws its error")
  func failing() async throws {
    let stub = StubTransport().on(.get, "/down", failing: .timedOut)
    let error = await #expect(throws: HTTPError.self) { try await stub.send(request(.get, "down")) }
    guard case .timedOut = error else {
      Issue.record("\(String(describing: error))")
      return
    }
  }

  @Test("records every request in order, and each stub keeps its own record")
  func recording() async throws {
    let first = StubTransport().on(.get, "/x", .status(200))
    let second = StubTransport().on(.get, "/x", .status(200))
    _ = try await first.send(request(.get, "x"))
    _ = try await first.send(request(.post, "y"))
    #expect(first.requests.map(\.httpMethod) == ["GET", "POST"])
    #expect(first.requests.map { $0.url?.path } == ["/3/x", "/3/y"])
    #expect(second.requests.isEmpty)
  }

  @Test("the response carries the stub's status, headers, body and the request URL")
  func responseShape() async throws {
    let stub = StubTransport().on(
      .get, "/m", .json(#"{"a":1}"#, status: 202, headers: ["ETag": "v1"]))
    let response = try await stub.send(request(.get, "m"))
    #expect(response.status == 202)
    #expect(response.headers["etag"] == "v1")
    #expect(response.headers["Content-Type"] == "application/json")
    #expect(response.text == #"{"a":1}"#)
    #expect(response.url == base.appendingPathComponent("m"))
  }

  @Test("a body read from disk, alone or in a multipart form, is recorded whole in httpBody")
  func fileBodiesRecorded() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-stub-\(UUID().uuidString).bin")
    let bytes = Data((0..<200_000).map { UInt8($0 % 251) })
    try bytes.write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let stub = StubTransport().on(.put, "/file", .status(204)).on(.post, "/form", .status(204))
    let client = HTTPClient(baseURL: base, transport: stub)
    _ = try await client.send(
      Request<Data>(method: .put, path: "file", body: .file(file, contentType: "image/png")))
    var form = MultipartForm(boundary: "b0undary")
    form.add(name: "note", value: "hi")
    form.add(name: "poster", fileURL: file, filename: "p.png")
    _ = try await client.send(Request<Data>(method: .post, path: "form", body: .multipart(form)))
    let recorded = stub.requests.map(\.httpBody)
    try #require(recorded.count == 2)
    #expect(recorded[0] == bytes)
    let multipart = try #require(recorded[1])
    #expect(multipart.range(of: bytes) != nil)
    #expect(multipart.starts(with: Data("--b0undary\r\n".utf8)))
    #expect(multipart.suffix(14) == Data("--b0undary--\r\n".utf8))
  }

  @Test("a request whose task is cancelled before it starts is neither recorded nor answered")
  func cancelledBeforeStart() async throws {
    let answered = Locked(0)
    let stub = StubTransport().fallback { _ throws(HTTPError) in
      answered.withLock { $0 += 1 }
      return .status(204)
    }
    let request = request(.get, "x")
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await stub.send(request)
    }
    await expectCancelled(task)
    #expect(stub.requests.isEmpty && answered.withLock { $0 } == 0)
    // Not cancelled, the same request is recorded and answered.
    _ = try await stub.send(request)
    #expect(stub.requests.count == 1 && answered.withLock { $0 } == 1)
  }

  @Test("a delayed answer ends with cancelled when the task is cancelled")
  func delayHonoursCancellation() async throws {
    let stub = StubTransport(delay: .seconds(3600)).on(.get, "/x", .status(200))
    let task = Task { try await stub.send(request(.get, "x")) }
    task.cancel()
    await expectCancelled(task)
  }

  @Test("a short delay still answers")
  func delayAnswers() async throws {
    let stub = StubTransport(delay: .milliseconds(1)).on(.get, "/x", .status(204))
    #expect(try await stub.send(request(.get, "x")).status == 204)
  }

  @Test("JSON from an Encodable value")
  func jsonEncoding() async throws {
    struct Movie: Encodable { var id = 1 }
    let stub = StubTransport().on(.get, "/m", try .json(encoding: Movie()))
    #expect(try await stub.send(request(.get, "m")).text == #"{"id":1}"#)
  }
}
