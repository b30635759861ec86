import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A provider whose refresh hands out "t1", "t2", … and counts how often it ran.
actor CountingProvider: CredentialProvider {
  private(set) var current: String
  private(set) var refreshCount = 0
  private let failure: HTTPError?
  private let gate: Gate?

  init(token: String = "t0", failing failure: HTTPError? = nil, gate: Gate? = nil) {
    current = token
    self.failure = failure
    self.gate = gate
  }

  func token() async throws(HTTPError) -> String { current }

  func refresh() async throws(HTTPError) -> String {
    refreshCount += 1
    await gate?.wait()
    if let failure { throw failure }
    current = "t\(refreshCount)"
    return current
  }

  func set(_ token: String) { current = token }
}

@Suite("Authentication middleware")
struct AuthenticationTests {
  /// Answers 200 only to `Bearer <valid>`, 401 otherwise, recording what it saw.
  func stub(valid: String) -> StubTransport {
    StubTransport().fallback { request throws(HTTPError) in
      let header = request.value(forHTTPHeaderField: "Authorization") ?? "-"
      return StubResponse(status: header == "Bearer \(valid)" ? 200 : 401, text: header)
    }
  }

  func client(_ middleware: any Middleware, _ transport: any HTTPTransport) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [middleware]
    return makeClient(transport: transport, configuration: configuration)
  }

  @Test("attaches the bearer token; no refresh while it is accepted")
  func attaches() async throws {
    let provider = CountingProvider()
    let client = client(BearerAuthentication(provider: provider), stub(valid: "t0"))
    #expect(try await client.send(Request<String>(path: "me")) == "Bearer t0")
    #expect(await provider.refreshCount == 0)
  }

  @Test("on 401 refreshes once and replays once with the new token")
  func refreshesAndReplays() async throws {
    let provider = CountingProvider()
    let transport = stub(valid: "t1")
    let client = client(BearerAuthentication(provider: provider), transport)
    #expect(try await client.send(Request<String>(path: "me")) == "Bearer t1")
    #expect(await provider.refreshCount == 1)
    #expect(transport.requests.count == 2)
  }

  @Test("a 401 after the replay is returned, not looped on")
  func noLoop() async throws {
    let provider = CountingProvider()
    let transport = stub(valid: "never")
    let client = client(BearerAuthentication(provider: provider), transport)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(path: "me"))
    }
    #expect(error?.status == 401)
    #expect(transport.requests.count == 2)
    #expect(await provider.refreshCount == 1)
  }

  @Test("a request refused with an older token replays with the current one, no refresh")
  func olderToken() async throws {
    let provider = CountingProvider(token: "t0")
    let refused = Signal()
    let transport = StubTransport().fallback { request throws(HTTPError) in
      let header = request.value(forHTTPHeaderField: "Authorization") ?? "-"
      if header == "Bearer t0" {
        await provider.set("t9")  // someone else refreshed meanwhile
        refused.fire()
        return StubResponse(status: 401, text: header)
      }
      return StubResponse(text: header)
    }
    let client = client(BearerAuthentication(provider: provider), transport)
    #expect(try await client.send(Request<String>(path: "me")) == "Bearer t9")
    #expect(await provider.refreshCount == 0)
  }

  @Test("a failed refresh fails the request with the refresh's error")
  func failedRefresh() async throws {
    let provider = CountingProvider(failing: .unacceptableStatus(HTTPResponse(status: 400)))
    let client = client(BearerAuthentication(provider: provider), stub(valid: "t1"))
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(path: "me"))
    }
    #expect(error?.status == 400)
  }

  @Test("a failed refresh is not reused for a request sent after it: that one refreshes again")
  func failureNotReusedLater() async throws {
    actor FlakyProvider: CredentialProvider {
      var current = "t0"
      var refreshes = 0
      func token() async throws(HTTPError) -> String { current }
      func refresh() async throws(HTTPError) -> String {
        refreshes += 1
        if refreshes == 1 { throw .timedOut }
        current = "t1"
        return current
      }
    }
    let provider = FlakyProvider()
    let client = client(BearerAuthentication(provider: provider), stub(valid: "t1"))
    await #expect(throws: HTTPError.timedOut) { try await client.send(Request<String>(path: "a")) }
    #expect(try await client.send(Request<String>(path: "b")) == "Bearer t1")
    #expect(await provider.refreshes == 2)
  }

  @Test("a provider that refreshes through the same client does not wait for itself")
  func refreshThroughSameClient() async throws {
    actor SelfRefreshing: CredentialProvider {
      var current = "t0"
      var client: HTTPClient?
      func use(_ client: HTTPClient) { self.client = client }
      func token() async throws(HTTPError) -> String { current }
      func refresh() async throws(HTTPError) -> String {
        current = try await client!.send(Request<String>(method: .post, path: "oauth/token"))
        return current
      }
    }
    let provider = SelfRefreshing()
    let transport = StubTransport()
      .on(.post, "/oauth/token", StubResponse(text: "t1"))
      .fallback { request throws(HTTPError) in
        let header = request.value(forHTTPHeaderField: "Authorization") ?? "-"
        return StubResponse(status: header == "Bearer t1" ? 200 : 401, text: header)
      }
    let client = client(BearerAuthentication(provider: provider), transport)
    await provider.use(client)
    let answer = await watched { try? await client.send(Request<String>(path: "me")) }
    #expect(answer == "Bearer t1")
  }

  @Test("an API key under any name is redacted in what comes back")
  func apiKeyRedacted() async throws {
    let stub = StubTransport().fallback { _ throws(HTTPError) in
      StubResponse(status: 404, text: "no")
    }
    let client = client(APIKeyAuthentication(key: "KEY-SECRET", in: .query("appid")), stub)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(path: "x"))
    }
    #expect(error.map { !"\($0)".contains("KEY-SECRET") } == true, "\(String(describing: error))")
    #expect(error?.description.contains("appid=<redacted>") == true)
  }

  @Test("the key is a credential: no description or dump of the middleware or its client shows it")
  func apiKeyNotPrinted() async throws {
    let middleware = APIKeyAuthentication(key: "KEY-SECRET", in: .header("X-App-Key"))
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [middleware]
    var dumped = ("", "")
    dump(middleware, to: &dumped.0)
    dump(configuration, to: &dumped.1)
    for text in [
      "\(middleware)", String(reflecting: middleware), "\(configuration.middleware)", dumped.0,
      dumped.1,
    ] {
      #expect(!text.contains("KEY-SECRET"), "\(text)")
    }
    // Where the key goes is still shown, and the key itself is there for the code to use.
    #expect("\(middleware)" == #"APIKeyAuthentication(key: <redacted>, in: header "X-App-Key")"#)
    #expect(
      "\(APIKeyAuthentication(key: "k", in: .query("api_key")))"
        == #"APIKeyAuthentication(key: <redacted>, in: query "api_key")"#)
    #expect(middleware.key == "KEY-SECRET")
  }

  @Test("endpoints with noAuthentication carry no token")
  func optOut() async throws {
    let provider = CountingProvider()
    let transport = stub(valid: "t0")
    let client = client(BearerAuthentication(provider: provider), transport)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(path: "login", options: .noAuthentication))
    }
    #expect(error?.response?.text == "-")
    #expect(await provider.refreshCount == 0)
  }

  @Test("requests to another origin than the client's carry no credentials")
  func otherOrigin() async throws {
    let provider = CountingProvider()
    let echo = StubTransport().fallback { request throws(HTTPError) in
      StubResponse(
        text:
          "\(request.url!.query ?? "") \(request.value(forHTTPHeaderField: "Authorization") ?? "-")"
      )
    }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      BearerAuthentication(provider: provider),
      APIKeyAuthentication(key: "k", in: .query("api_key")),
    ]
    let client = makeClient(transport: echo, configuration: configuration)
    #expect(try await client.send(Request<String>(path: "mine")) == "api_key=k Bearer t0")
    #expect(try await client.send(Request<String>(path: "https://cdn.example.net/x")) == " -")
    #expect(
      try await client.send(Request<String>(path: "https://api.example.com:443/y"))
        == "api_key=k Bearer t0")
  }

  @Test("a waiter cancelled during a shared refresh leaves at once; the refresh goes on")
  func cancelledWaiter() async throws {
    let gate = Gate()
    let provider = CountingProvider(gate: gate)
    let refused = Signal()
    let transport = StubTransport().fallback { request throws(HTTPError) in
      let header = request.value(forHTTPHeaderField: "Authorization") ?? "-"
      if header == "Bearer t0" { refused.fire() }
      return StubResponse(status: header == "Bearer t1" ? 200 : 401, text: header)
    }
    let client = client(BearerAuthentication(provider: provider), transport)
    let waiter = Task { try await client.send(Request<String>(path: "a")) }
    await refused.wait()
    waiter.cancel()
    await expectCancelled(waiter)
    gate.open()
    #expect(try await client.send(Request<String>(path: "b")) == "Bearer t1")
    #expect(await provider.refreshCount == 1)
  }

  @Test("an API key goes in a header or a query item, and not on opted-out endpoints")
  func apiKey() async throws {
    let echo = StubTransport().fallback { request throws(HTTPError) in
      StubResponse(
        text: "\(request.url!.query ?? "") \(request.value(forHTTPHeaderField: "X-Api-Key") ?? "-")"
      )
    }
    let inQuery = client(APIKeyAuthentication(key: "s3 cret", in: .query("api_key")), echo)
    #expect(
      try await inQuery.send(Request<String>(path: "x", query: ["page": 2]))
        == "page=2&api_key=s3%20cret -")
    #expect(try await inQuery.send(Request<String>(path: "x")) == "api_key=s3%20cret -")
    #expect(try await inQuery.send(Request<String>(path: "x", options: .noAuthentication)) == " -")
    let inHeader = client(APIKeyAuthentication(key: "k", in: .header("X-Api-Key")), echo)
    #expect(try await inHeader.send(Request<String>(path: "x")) == " k")
  }

  @Test(
    "a token or key that cannot be a header (CR, LF, a bad name) fails clearly; nothing is sent",
    arguments: [
      ("token", "abc\r\nX-Injected: yes"), ("refreshed token", "t1\nX-Injected: yes"),
      ("header key", "k\nX-Injected: yes"), ("header name", "X Api Key"),
    ])
  func unsendableCredential(kind: String, value: String) async throws {
    let echo = StubTransport().fallback { request throws(HTTPError) in
      let header = request.value(forHTTPHeaderField: "Authorization") ?? "-"
      return StubResponse(status: header == "Bearer t0" ? 401 : 200, text: header)
    }
    let middleware: any Middleware =
      switch kind {
      case "token": BearerAuthentication(provider: FixedTokenProvider(token: value))
      case "refreshed token": BearerAuthentication(provider: FixedTokenProvider(refreshed: value))
      case "header key": APIKeyAuthentication(key: value, in: .header("X-Api-Key"))
      default: APIKeyAuthentication(key: "k", in: .header(value))
      }
    let error = await #expect(throws: HTTPError.self) {
      try await client(middleware, echo).send(Request<String>(path: "me"))
    }
    let reason = try #require(error?.invalidRequestReason, "\(String(describing: error))")
    #expect(!reason.contains("X-Injected"), "the value stays out of the reason")
    // Only the first request of the refreshed-token case went out, with the valid token.
    #expect(echo.requests.count == (kind == "refreshed token" ? 1 : 0))
  }
}

/// A provider with a fixed token, and a fixed one after a refresh.
private actor FixedTokenProvider: CredentialProvider {
  private var current: String
  private let refreshed: String

  init(token: String = "t0", refreshed: String = "t1") {
    current = token
    self.refreshed = refreshed
  }

  func token() async throws(HTTPError) -> String { current }

  func refresh() async throws(HTTPError) -> String {
    current = refreshed
    return current
  }
}
