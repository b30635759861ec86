import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@Suite("HTTPClient over the stub transport")
struct HTTPClientTests {
  let page = #"{"page":1,"results":[{"id":7,"title":"Heat"}]}"#

  @Test("send returns the decoded answer of an enum endpoint")
  func send() async throws {
    let stub = StubTransport().on(.get, "/movie/popular", .json(page))
    let result = try await makeClient(transport: stub).send(MovieApi.popular(page: 1))
    #expect(result == MoviePage(page: 1, results: [Movie(id: 7, title: "Heat")]))
    #expect(
      stub.requests.map { $0.url?.absoluteString } == [
        "https://api.example.com/3/movie/popular?page=1"
      ])
  }

  @Test("response(for:) returns the value with status, headers and URL")
  func responseMetadata() async throws {
    let stub = StubTransport().on(
      .get, "/movie/popular", .json(page, headers: ["X-RateLimit": "39"]))
    let result = try await makeClient(transport: stub).response(for: MovieApi.popular(page: 1))
    #expect(result.value.page == 1)
    #expect(result.status == 200)
    #expect(result.headers["x-ratelimit"] == "39")
    #expect(result.response.url?.path == "/3/movie/popular")
  }

  @Test("a status outside the acceptable range is unacceptableStatus with the body kept")
  func unacceptable() async throws {
    struct APIError: Decodable, Equatable {
      var message: String
      enum CodingKeys: String, CodingKey { case message = "status_message" }
    }
    let stub = StubTransport().on(
      .get, "/movie/1", .json(#"{"status_message":"not found"}"#, status: 404))
    let error = await #expect(throws: HTTPError.self) {
      try await makeClient(transport: stub).send(Request<Movie>(path: "movie/1"))
    }
    guard case .unacceptableStatus(let response) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(response.status == 404)
    #expect(error?.status == 404)
    #expect(error?.decodeBody(as: APIError.self) == APIError(message: "not found"))
    #expect(error?.decodeBody(as: Movie.self) == nil)
  }

  @Test("an endpoint may accept other status codes than the client does")
  func endpointStatusCodes() async throws {
    let stub = StubTransport().on(.get, "/maybe", StubResponse(status: 404, text: "none"))
    let client = makeClient(transport: stub)
    #expect(
      try await client.send(
        Request<String>(path: "maybe", acceptableStatusCodes: StatusCodes(200..<500)))
        == "none")
    await #expect(throws: HTTPError.self) { try await client.send(Request<String>(path: "maybe")) }
  }

  @Test("a body over the limit is responseTooLarge; one at the limit is fine")
  func bodyLimit() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 10
    let stub = StubTransport()
      .on(.get, "/big", StubResponse(body: Data(count: 11)))
      .on(.get, "/fits", StubResponse(body: Data(count: 10)))
    let client = makeClient(transport: stub, configuration: configuration)
    #expect(try await client.send(Request<Data>(path: "fits")).count == 10)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "big"))
    }
    guard case .responseTooLarge(let limit) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(limit == 10)
  }

  @Test("transport errors reach the caller unchanged")
  func transportErrors() async throws {
    let stub = StubTransport().on(
      .get, "/down", failing: .transport(URLError(.cannotConnectToHost)))
    let error = await #expect(throws: HTTPError.self) {
      try await makeClient(transport: stub).send(Request<Data>(path: "down"))
    }
    guard case .transport(let urlError) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(urlError.code == .cannotConnectToHost)
  }

  @Test("a request slower than its timeout is timedOut, and the transport sees the cancellation")
  func timeout() async throws {
    let sawCancellation = Signal()
    let stub = StubTransport().on(.get, "/slow") { _ throws(HTTPError) in
      do {
        try await Task.sleep(for: .seconds(3600))
      } catch {
        sawCancellation.fire()
        throw .cancelled
      }
      return .status(200)
    }
    let error = await #expect(throws: HTTPError.self) {
      try await makeClient(transport: stub).send(
        Request<Data>(path: "slow", timeout: .milliseconds(50)))
    }
    guard case .timedOut = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(await watched { await sawCancellation.wait() } != nil)
  }

  @Test("a timeout returns at once even when the transport is slow to notice cancellation")
  func timeoutDoesNotWaitForTransport() async throws {
    let gate = Gate()
    let stub = StubTransport().on(.get, "/stubborn") { _ throws(HTTPError) in
      await gate.wait()  // ignores cancellation until the test opens the gate
      return .status(200)
    }
    let client = makeClient(transport: stub)
    let result = await watched {
      await Result { () async throws(HTTPError) in
        try await client.send(Request<Data>(path: "stubborn", timeout: .milliseconds(20)))
      }
    }
    gate.open()
    guard case .failure(.timedOut)? = result else {
      Issue.record("expected timedOut, got \(String(describing: result))")
      return
    }
  }

  @Test("the client's timeout applies when the endpoint names none; nil means no deadline")
  func clientTimeout() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.timeout = .milliseconds(20)
    let stub = StubTransport(delay: .seconds(3600))
    let error = await #expect(throws: HTTPError.self) {
      try await makeClient(transport: stub, configuration: configuration).send(
        Request<Data>(path: "x"))
    }
    guard case .timedOut = error else {
      Issue.record("\(String(describing: error))")
      return
    }

    configuration.timeout = nil
    let fast = StubTransport().on(.get, "/x", StubResponse(text: "ok"))
    #expect(
      try await makeClient(transport: fast, configuration: configuration).send(
        Request<String>(path: "x")) == "ok")
  }

  @Test(
    "a timeout or idle timeout of zero or less, or a negative size limit, is invalidRequest",
    arguments: ["timeout 0", "timeout -1", "endpoint 0", "idle 0", "idle -1", "size -1"])
  func nonPositiveTimeouts(setting: String) async throws {
    let stub = StubTransport().fallback { _ throws(HTTPError) in StubResponse(text: "ok") }
    var configuration = HTTPClient.Configuration()
    var endpoint = Request<String>(path: "x")
    switch setting {
    case "timeout 0": configuration.timeout = .zero
    case "timeout -1": configuration.timeout = .seconds(-1)
    case "endpoint 0": endpoint.timeout = .zero
    case "idle 0": configuration.idleTimeout = .zero
    case "idle -1": configuration.idleTimeout = .seconds(-1)
    default: configuration.maximumResponseBytes = -1
    }
    let client = makeClient(transport: stub, configuration: configuration)
    let error = await #expect(throws: HTTPError.self) { try await client.send(endpoint) }
    let reason = try #require(error?.invalidRequestReason, "\(String(describing: error))")
    #expect(reason.contains(setting.hasPrefix("size") ? "size limit" : "timeout"), "\(reason)")
    #expect(stub.requests.isEmpty)
  }

  @Test(
    "a transfer's non-positive timeout, negative size limit, buffer or resume count is invalidRequest",
    arguments: [
      TransferOptions(timeout: .zero), TransferOptions(idleTimeout: .milliseconds(-5)),
      TransferOptions(maximumBytes: -1), TransferOptions(bufferSize: -1),
      TransferOptions(maximumResumeAttempts: -1),
    ])
  func nonPositiveTransferTimeouts(options: TransferOptions) async throws {
    let stub = StubTransport().fallback { _ throws(HTTPError) in StubResponse(text: "ok") }
    let client = makeClient(transport: stub)
    let directory = FileManager.default.temporaryDirectory
    let destination = directory.appendingPathComponent("courier-\(UUID().uuidString)")
    let download = await #expect(throws: HTTPError.self) {
      try await client.download(Request<Data>(path: "x"), to: destination, options: options)
        .finished()
    }
    let expected =
      options.maximumBytes != nil
      ? "size limit"
      : options.bufferSize < 0
        ? "buffer size"
        : options.maximumResumeAttempts < 0
          ? "maximumResumeAttempts" : "timeout"
    var errors = [download]
    if options.maximumResumeAttempts >= 0 {  // for downloads only: a stream has none to make
      errors.append(
        await #expect(throws: HTTPError.self) {
          try await client.bytes(Request<Data>(path: "x"), options: options)
        })
    }
    for error in errors {
      #expect(
        error?.invalidRequestReason?.contains(expected) == true, "\(String(describing: error))")
    }
    #expect(stub.requests.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: destination.path))
  }

  @Test(
    "a concurrency limit below 1 is invalidRequest, not a silent limit of one; nothing is sent",
    arguments: [(0, nil), (-2, nil), (nil, 0)] as [(Int?, Int?)])
  func concurrencyLimitBelowOne(overall: Int?, perHost: Int?) async throws {
    let stub = StubTransport().fallback { _ throws(HTTPError) in StubResponse(text: "ok") }
    var configuration = HTTPClient.Configuration()
    configuration.maximumConcurrentRequests = overall
    configuration.maximumConcurrentRequestsPerHost = perHost
    let client = makeClient(transport: stub, configuration: configuration)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(path: "x"))
    }
    let reason = try #require(error?.invalidRequestReason, "\(String(describing: error))")
    #expect(reason.contains("maximumConcurrentRequests"), "\(reason)")
    #expect(stub.requests.isEmpty)
  }

  @Test("cancelling the caller ends a pending request with cancelled, not timedOut")
  func cancellation() async throws {
    let started = AsyncStream<Void>.makeStream()
    let stub = StubTransport().on(.get, "/wait") { _ throws(HTTPError) in
      started.continuation.yield()
      do { try await Task.sleep(for: .seconds(3600)) } catch { throw .cancelled }
      return .status(200)
    }
    let client = makeClient(transport: stub)
    let task = Task { try await client.send(Request<Data>(path: "wait")) }
    var iterator = started.stream.makeAsyncIterator()
    await iterator.next()
    task.cancel()
    await expectCancelled(task)
  }

  @Test("a task cancelled before it sends gets cancelled and sends nothing")
  func cancelledBeforeSend() async throws {
    let stub = StubTransport(delay: .seconds(3600))
    let client = makeClient(transport: stub)
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await client.send(Request<Data>(path: "x"))
    }
    await expectCancelled(task)
    #expect(stub.requests.isEmpty)
  }

  @Test("200 concurrent sends are each answered with their own result")
  func concurrentSends() async throws {
    let stub = StubTransport().fallback { request throws(HTTPError) in
      let id = request.url?.lastPathComponent ?? "?"
      return .json(#"{"id":\#(id),"title":"Movie \#(id)"}"#)
    }
    let client = makeClient(transport: stub)
    let movies = try await withThrowingTaskGroup(of: Movie.self) { group in
      for id in 0..<200 {
        group.addTask { try await client.send(Request<Movie>(path: "movie/\(id)")) }
      }
      return try await group.reduce(into: [Movie]()) { $0.append($1) }
    }
    #expect(movies.count == 200)
    #expect(Set(movies.map(\.id)) == Set(0..<200))
    #expect(movies.allSatisfy { $0.title == "Movie \($0.id)" })
    #expect(stub.requests.count == 200)
  }
}
