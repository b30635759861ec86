import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@Suite("Redirects keep credentials home", .timeLimit(.minutes(1)))
struct RedirectTests {
  /// A server that echoes the credentials and body it received.
  func echo() throws -> LoopbackServer {
    try LoopbackServer { request, response in
      let auth = request.headers["Authorization"] ?? "-"
      let cookie = request.headers["Cookie"] ?? "-"
      let body = String(decoding: request.body, as: UTF8.self)
      try await response.send(text: "\(request.method) \(request.path) \(auth) \(cookie) \(body)")
    }
  }

  /// A server that redirects every request to `target` with `status`.
  func redirector(to target: @escaping @Sendable (LoopbackRequest) -> String, status: Int = 302)
    throws -> LoopbackServer
  {
    try LoopbackServer { request, response in
      if request.path.hasPrefix("/landing") {
        let auth = request.headers["Authorization"] ?? "-"
        let body = String(decoding: request.body, as: UTF8.self)
        try await response.send(text: "\(request.method) \(request.path) \(auth) \(body)")
      } else {
        try await response.send(
          status: status, headers: ["Location": target(request)], text: "moved")
      }
    }
  }

  func client(_ server: LoopbackServer, redirects: RedirectPolicy = .default) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.headers = ["Authorization": "Bearer s3cret", "Cookie": "sid=s3cret"]
    configuration.redirects = redirects
    return HTTPClient(baseURL: server.baseURL, configuration: configuration)
  }

  @Test("a redirect to another origin drops Authorization and Cookie")
  func crossOrigin() async throws {
    let elsewhere = try echo()
    defer { elsewhere.stop() }
    let target = elsewhere.baseURL.appendingPathComponent("landing").absoluteString
    let origin = try redirector(to: { _ in target })
    defer { origin.stop() }
    let answer = try await client(origin).send(Request<String>(path: "start"))
    #expect(answer == "GET /landing - - ")
  }

  @Test("a redirect within the origin keeps them")
  func sameOrigin() async throws {
    let origin = try redirector(to: { _ in "/landing" })
    defer { origin.stop() }
    let answer = try await client(origin).send(Request<String>(path: "start"))
    #expect(answer == "GET /landing Bearer s3cret ")
  }

  @Test("307 and 308 keep the method and re-send the body")
  func bodyKept() async throws {
    for status in [307, 308] {
      let origin = try redirector(to: { _ in "/landing" }, status: status)
      defer { origin.stop() }
      let answer = try await client(origin).send(
        Request<String>(method: .post, path: "start", body: .json(["rating": 8])))
      #expect(answer == #"POST /landing Bearer s3cret {"rating":8}"#, "\(status)")
    }
  }

  @Test("a redirect's small body is read, not cut; timings count the redirects before each hop")
  func redirectBodyDrained() async throws {
    let server = try LoopbackServer { request, response in
      if request.path == "/start" {
        return try await response.send(
          status: 302, headers: ["Location": "/landing"], body: Data(count: 20_000))
      }
      try await response.send(text: "landed")
    }
    defer { server.stop() }
    let events = Locked<[HTTPEvent]>([])
    var configuration = HTTPClient.Configuration()
    configuration.observer = { event in events.withLock { $0.append(event) } }
    // A transport of its own: the connections are counted.
    let client = HTTPClient(
      baseURL: server.baseURL, configuration: configuration, transport: ownTransport())
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let file = try await client.download(Request<Data>(path: "start"), to: scratch.file("f"))
      .finished()
    #expect(try String(contentsOf: file.url, encoding: .utf8) == "landed")
    #expect(server.requestCount == 2)
    #expect(server.connectionCount == 1)
    let hops = events.withLock { $0 }.compactMap { event -> Int? in
      if case .measured(_, let timings) = event { timings.redirects } else { nil }
    }
    #expect(hops == [0, 1])
  }

  @Test("a download's progress is the answer's alone, never a redirect body's")
  func progressOfTheAnswer() async throws {
    let answer = Data(count: 300_000)
    let server = try LoopbackServer { request, response in
      if request.path == "/start" {
        return try await response.send(
          status: 302, headers: ["Location": "/landing"], body: Data(count: 10_000))
      }
      try await response.send(body: answer)
    }
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    var reports: [TransferProgress] = []
    for try await event in client.download(Request<Data>(path: "start"), to: scratch.file("f")) {
      if case .progress(let progress) = event { reports.append(progress) }
    }
    #expect(!reports.isEmpty)
    #expect(reports.allSatisfy { $0.expectedBytes == nil || $0.expectedBytes == 300_000 })
    #expect(reports.last?.completedBytes == 300_000)
  }

  @Test("a 307 cannot send a one-time stream twice; a stream made afresh goes again")
  func oneTimeStream() async throws {
    let origin = try redirector(to: { _ in "/landing" }, status: 307)
    defer { origin.stop() }
    let content = String(repeating: "x", count: 100_000)
    let chunks = AsyncStream<Data> {
      $0.yield(Data(content.utf8))
      $0.finish()
    }
    let error = await #expect(throws: HTTPError.self) {
      try await client(origin).send(
        Request<String>(method: .post, path: "start", body: .stream(chunks)))
    }
    #expect(error?.urlErrorCode == .requestBodyStreamExhausted)
    #expect(origin.requestCount == 1)
    let fresh = RequestBody.stream {
      AsyncStream<Data> {
        $0.yield(Data(content.utf8))
        $0.finish()
      }
    }
    let answer = try await client(origin).send(
      Request<String>(method: .post, path: "start", body: fresh))
    #expect(answer == "POST /landing Bearer s3cret \(content)")
  }

  @Test("a 307 to another origin re-sends the body but not the credentials")
  func bodyKeptCrossOrigin() async throws {
    let elsewhere = try echo()
    defer { elsewhere.stop() }
    let target = elsewhere.baseURL.appendingPathComponent("landing").absoluteString
    let origin = try redirector(to: { _ in target }, status: 307)
    defer { origin.stop() }
    let answer = try await client(origin).send(
      Request<String>(method: .put, path: "start", body: .json(["rating": 8])))
    #expect(answer == #"PUT /landing - - {"rating":8}"#)
  }

  @Test("301 and 302 keep the body of PUT, PATCH and DELETE; POST becomes a GET without one")
  func bodyKeptOn301And302() async throws {
    for status in [301, 302] {
      let origin = try redirector(to: { _ in "/landing" }, status: status)
      defer { origin.stop() }
      for method in [HTTPMethod.put, .patch, .delete] {
        let answer = try await client(origin).send(
          Request<String>(method: method, path: "start", body: .json(["x": 1])))
        #expect(
          answer == #"\#(method.rawValue) /landing Bearer s3cret {"x":1}"#, "\(status) \(method)")
      }
      let post = try await client(origin).send(
        Request<String>(method: .post, path: "start", body: .json(["x": 1])))
      #expect(post == "GET /landing Bearer s3cret ", "\(status) POST")
    }
  }

  @Test("every credential-looking header stays home: API keys too")
  func apiKeyHeaderStaysHome() async throws {
    let elsewhere = try LoopbackServer { request, response in
      try await response.send(text: request.headers["X-Api-Key"] ?? "-")
    }
    defer { elsewhere.stop() }
    let target = elsewhere.baseURL.appendingPathComponent("landing").absoluteString
    let origin = try redirector(to: { _ in target })
    defer { origin.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [APIKeyAuthentication(key: "k3y", in: .header("X-Api-Key"))]
    let client = HTTPClient(baseURL: origin.baseURL, configuration: configuration)
    #expect(try await client.send(Request<String>(path: "start")) == "-")
  }

  @Test("more redirects than the maximum fail with httpTooManyRedirects")
  func tooMany() async throws {
    let loop = try LoopbackServer { request, response in
      let hop = Int(request.path.split(separator: "/").last ?? "0") ?? 0
      try await response.send(status: 302, headers: ["Location": "/hop/\(hop + 1)"], text: "")
    }
    defer { loop.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await client(loop, redirects: .follow(maximum: 3)).send(Request<String>(path: "hop/0"))
    }
    guard case .transport(let urlError) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(urlError.code == .httpTooManyRedirects)
    #expect(loop.requestCount == 4)
  }

  @Test("never: the 3xx response is the answer")
  func never() async throws {
    let origin = try redirector(to: { _ in "/landing" })
    defer { origin.stop() }
    let response = try await client(origin, redirects: .never).response(
      for: Request<String>(path: "start", acceptableStatusCodes: StatusCodes(200..<400)))
    #expect(response.status == 302)
    #expect(response.headers["Location"] == "/landing")
    #expect(origin.requestCount == 1)
  }

  @Test("the client follows: each hop is an exchange of its own through the transport")
  func clientFollows() async throws {
    let origin = try redirector(to: { _ in "/landing" })
    defer { origin.stop() }
    let sent = Locked<[String]>([])
    let recording = RecordingTransport(base: HTTPClient(baseURL: origin.baseURL).transport) {
      line in
      sent.withLock { $0.append(line) }
    }
    let client = HTTPClient(baseURL: origin.baseURL, transport: recording)
    let answer = try await client.send(Request<String>(path: "start"))
    #expect(answer.hasPrefix("GET /landing"))
    #expect(sent.withLock { $0 } == ["GET /start", "GET /landing"])
  }
}
