import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@Suite("LoggingMiddleware and curl commands")
struct LoggingMiddlewareTests {
  func client(_ level: LoggingMiddleware.Level, lines: Locked<[String]>, stub: StubTransport)
    -> HTTPClient
  {
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      LoggingMiddleware(level: level, redacting: ["X-Tenant"]) { line in
        lines.withLock { $0.append(line) }
      }
    ]
    return makeClient(transport: stub, configuration: configuration)
  }

  @Test("basic: one line out, one line back, with status, duration, bytes and attempt")
  func basic() async throws {
    let lines = Locked<[String]>([])
    let stub = StubTransport().on(.get, "/movie/popular", .json(#"{"page":1,"results":[]}"#))
    _ = try await client(.basic, lines: lines, stub: stub).send(MovieApi.popular(page: 2))
    let logged = lines.withLock { $0 }
    #expect(logged.count == 2)
    #expect(logged[0] == "→ GET https://api.example.com/3/movie/popular?page=2 (attempt 1)")
    #expect(logged[1].hasPrefix("← 200 GET https://api.example.com/3/movie/popular?page=2 "))
    #expect(logged[1].hasSuffix(" ms, 23 bytes (attempt 1)"), "\(logged[1])")
  }

  @Test("a byte stream's line is written at its head, saying the body is streamed")
  func streamed() async throws {
    let lines = Locked<[String]>([])
    let stub = StubTransport().on(.get, "/feed", .chunks([Data("one".utf8), Data("two".utf8)]))
    let stream = try await client(.bodies, lines: lines, stub: stub)
      .bytes(Request<Data>(path: "feed"))
    let logged = lines.withLock { $0 }
    #expect(logged.count == 2)
    #expect(logged.last?.hasSuffix(" ms, body streamed (attempt 1)") == true, "\(logged)")
    var body = Data()
    for try await chunk in stream { body.append(chunk) }
    #expect(body == Data("onetwo".utf8))
  }

  @Test("headers and bodies levels add them, bodies cut at the limit")
  func headersAndBodies() async throws {
    let lines = Locked<[String]>([])
    let stub = StubTransport().fallback { _ throws(HTTPError) in
      StubResponse(headers: ["ETag": "v1"], text: String(repeating: "x", count: 2000))
    }
    let endpoint = Request<String>(
      method: .post, path: "notes", headers: ["X-Trace": "t1"], body: .json(["note": "hi"]))
    _ = try await client(.bodies, lines: lines, stub: stub).send(endpoint)
    let logged = lines.withLock { $0 }
    #expect(logged[0].contains("X-Trace: t1"))
    #expect(logged[0].contains(#"{"note":"hi"}"#))
    #expect(logged[1].contains("ETag: v1"))
    #expect(logged[1].contains("… (2000 bytes)"))
    lines.withLock { $0 = [] }
    _ = try await client(.off, lines: lines, stub: stub).send(endpoint)
    #expect(lines.withLock { $0 }.isEmpty)
  }

  @Test("a bodyLimit below zero writes no body text, as zero does, and does not trap")
  func negativeBodyLimit() async throws {
    let lines = Locked<[String]>([])
    let stub = StubTransport().fallback { _ throws(HTTPError) in StubResponse(text: "secret-ish") }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      LoggingMiddleware(level: .bodies, bodyLimit: -1) { line in
        lines.withLock { $0.append(line) }
      }
    ]
    _ = try await makeClient(transport: stub, configuration: configuration).send(
      Request<String>(method: .post, path: "notes", body: .json(["greeting": "hi"])))
    let logged = lines.withLock { $0 }
    #expect(logged.count == 2)
    #expect(
      logged.allSatisfy { !$0.contains("greeting") && !$0.contains("secret-ish") }, "\(logged)")
    #expect(logged[1].contains("… (10 bytes)"), "\(logged)")
  }

  @Test("inside RetryPolicy, each answer's line names its own attempt")
  func insideRetries() async throws {
    let lines = Locked<[String]>([])
    let answers = Locked([503, 200])
    let stub = StubTransport().fallback { _ throws(HTTPError) in
      .status(answers.withLock { $0.removeFirst() })
    }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      RetryPolicy(maximumAttempts: 2, jitter: .none, clock: RecordingClock()),
      LoggingMiddleware { line in lines.withLock { $0.append(line) } },
    ]
    _ = try await makeClient(transport: stub, configuration: configuration)
      .send(Request<Data>(path: "x"))
    let attempts = lines.withLock { $0 }.map { $0.suffix(11) }
    #expect(attempts == ["(attempt 1)", "(attempt 1)", "(attempt 2)", "(attempt 2)"])
  }

  @Test("a failure is one line naming the error")
  func failure() async throws {
    let lines = Locked<[String]>([])
    let stub = StubTransport().fallback { _ throws(HTTPError) in throw .timedOut }
    await #expect(throws: HTTPError.self) {
      try await client(.basic, lines: lines, stub: stub).send(Request<Data>(path: "slow"))
    }
    #expect(lines.withLock { $0 }.last?.contains("failed after") == true)
    #expect(lines.withLock { $0 }.last?.hasSuffix("The request timed out.") == true)
  }

  @Test("curl command: method, quoted URL, headers and body, shell-safe and redacted")
  func curl() throws {
    var configuration = HTTPClient.Configuration()
    configuration.headers["Authorization"] = "Bearer s3cret-token"
    let client = makeClient(configuration: configuration)
    let endpoint = Request<Data>(
      method: .post, path: "it's", query: ["api_key": "s3cret-key", "q": "a b"],
      headers: ["X-Tenant": "acme-secret"], body: .json(["note": "it's"]))
    let curl = try client.curlCommand(for: endpoint, redacting: ["x-tenant"])
    #expect(
      curl == """
        curl -X POST 'https://api.example.com/3/it'\\''s?api_key=<redacted>&q=a%20b' \\
          -H 'Authorization: <redacted>' \\
          -H 'Content-Type: application/json' \\
          -H 'X-Tenant: <redacted>' \\
          --data-binary '{"note":"it'\\''s"}'
        """, "\(curl)")
    #expect(!curl.contains("s3cret") && !curl.contains("acme-secret"))
    #expect(
      curl.hasPrefix("curl -X POST 'https://api.example.com/3/it'\\''s?api_key=<redacted>&q=a%20b'")
    )
    #expect(curl.contains("-H 'Authorization: <redacted>'"))
    #expect(curl.contains(#"--data-binary '{"note":"it'\''s"}'"#))
  }

  @Test("a multipart form's credential fields are redacted in logs and curl commands, as a form's")
  func multipartFields() async throws {
    var form = MultipartForm(boundary: "b0undary")
    form.add(name: "user", value: "ann")
    form.add(name: "password", value: "pw-SECRET")
    form.add(name: "X-Tenant", value: "tenant-SECRET")
    form.add(name: "note", value: "line one\r\nline two")
    let endpoint = Request<Data>(method: .post, path: "login", body: .multipart(form))
    let lines = Locked<[String]>([])
    let stub = StubTransport().on(.post, "login", .status(204))
    let client = client(.bodies, lines: lines, stub: stub)
    _ = try await client.send(endpoint)
    let curl = try client.curlCommand(for: endpoint, redacting: ["X-Tenant"])
    let logged = try #require(lines.withLock { $0.first })
    for text in [logged, curl] {
      #expect(!text.contains("pw-SECRET") && !text.contains("tenant-SECRET"), "\(text)")
      // The other fields, and the form's shape, are shown as they are.
      #expect(text.contains("name=\"user\"\r\n\r\nann\r\n--b0undary"), "\(text)")
      #expect(text.contains("name=\"password\"\r\n\r\n<redacted>\r\n--b0undary"), "\(text)")
      #expect(text.contains("line one\r\nline two\r\n--b0undary--"), "\(text)")
    }
    // What was sent is the form itself.
    let sent = try #require(stub.requests.first?.httpBody)
    #expect(String(decoding: sent, as: UTF8.self).contains("\r\n\r\npw-SECRET\r\n"))
  }

  @Test("a request on a Unix domain socket pastes as curl takes it: --unix-socket, http URL")
  func curlUnixSocket() throws {
    let docker = HTTPClient(baseURL: try #require(URL(unixSocketPath: "/var/run/docker.sock")))
    let endpoint = Request<Data>(
      path: "v1.43/containers/json", query: ["all": true, "token": "t-SECRET"])
    #expect(
      try docker.curlCommand(for: endpoint)
        == "curl --unix-socket '/var/run/docker.sock' -X GET "
        + "'http://localhost/v1.43/containers/json?all=true&token=<redacted>'")
    let secure = HTTPClient(
      baseURL: try #require(URL(unixSocketPath: "/run/it's.sock", secure: true)))
    #expect(
      try secure.curlCommand(for: Request<Data>(path: "x"))
        == #"curl --unix-socket '/run/it'\''s.sock' -X GET 'https://localhost/x'"#)
  }

  @Test("a binary body is named, not printed")
  func curlBinary() throws {
    let endpoint = Request<Data>(method: .put, path: "x", body: .data(Data([0xFF, 0x00, 0xFE])))
    let curl = try makeClient().curlCommand(for: endpoint)
    #expect(curl.hasSuffix("--data-binary @body.bin  # 3 bytes of binary data"))
  }
}
