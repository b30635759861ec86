import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Every configured credential stays with its origin on every redirect")
struct RedirectCredentialTests {
  /// Each credential header and its value, configured in every way a client can have one.
  static let credentials: [(name: String, value: String)] = [
    ("Authorization", "Bearer auth-SECRET"),
    ("Cookie", "sid=cookie-SECRET"),
    ("X-Tenant", "tenant-SECRET"),  // a default header listed in redactedNames
    ("X-Client-Id", "apikey-SECRET"),  // APIKeyAuthentication under a name of its own
    ("X-Client", "clientid-SECRET"),  // a third-party middleware's markCredential
  ]

  /// A client whose every request carries all the credentials above.
  func client(_ baseURL: URL, transport: (any HTTPTransport)? = nil) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.headers = [
      "Authorization": "Bearer auth-SECRET", "Cookie": "sid=cookie-SECRET",
      "X-Tenant": "tenant-SECRET", "X-Trace": "trace-1",
    ]
    configuration.redactedNames = ["X-Tenant"]
    configuration.middleware = [
      APIKeyAuthentication(key: "apikey-SECRET", in: .header("X-Client-Id")),
      ClientIDMiddleware(),
    ]
    return HTTPClient(baseURL: baseURL, configuration: configuration, transport: transport)
  }

  /// A server that answers every request with the names of the credential headers it got,
  /// plus `X-Trace` (not a credential, so it must arrive everywhere).
  func landing() throws -> LoopbackServer {
    try LoopbackServer { request, response in
      let names = (Self.credentials.map(\.name) + ["X-Trace"]).filter {
        request.headers[$0] != nil
      }
      try await response.send(text: "\(request.method) " + names.joined(separator: ","))
    }
  }

  /// A server that redirects `/start` to `target` with `status`.
  func redirector(to target: String, status: Int) throws -> LoopbackServer {
    try LoopbackServer { request, response in
      try await response.send(status: status, headers: ["Location": target], text: "moved")
    }
  }

  /// What the landing server reports for a redirect to it with `status` after `method`.
  func landed(status: Int, method: HTTPMethod, target: String, transport: (any HTTPTransport)?)
    async throws -> String
  {
    let origin = try redirector(to: target, status: status)
    defer { origin.stop() }
    let body: RequestBody? = method == .post ? .json(["x": 1]) : nil
    return try await client(origin.baseURL, transport: transport).send(
      Request<String>(method: method, path: "start", body: body))
  }

  static let statuses = [301, 302, 303, 307, 308]
  static let methods: [HTTPMethod] = [.get, .post]

  @Test(
    "another port: no credential follows, whatever the status and method",
    arguments: statuses, methods)
  func otherPort(status: Int, method: HTTPMethod) async throws {
    let elsewhere = try landing()
    defer { elsewhere.stop() }
    let target = elsewhere.baseURL.appendingPathComponent("landing").absoluteString
    let answer = try await landed(status: status, method: method, target: target, transport: nil)
    #expect(answer.hasSuffix(" X-Trace"), "\(status) \(method.rawValue): \(answer)")
  }

  @Test(
    "localhost is another origin than 127.0.0.1: no credential follows", arguments: statuses,
    methods)
  func otherHostName(status: Int, method: HTTPMethod) async throws {
    let elsewhere = try landing()
    defer { elsewhere.stop() }
    let target = "http://localhost:\(elsewhere.port)/landing"
    let answer = try await landed(status: status, method: method, target: target, transport: nil)
    #expect(answer.hasSuffix(" X-Trace"), "\(status) \(method.rawValue): \(answer)")
  }

  @Test("an absolute URL to another origin gets no credential, a middleware's marked one too")
  func absoluteURLElsewhere() async throws {
    let home = try landing()
    defer { home.stop() }
    let elsewhere = try landing()
    defer { elsewhere.stop() }
    let client = client(home.baseURL)
    let target = elsewhere.baseURL.appendingPathComponent("landing").absoluteString
    #expect(try await client.send(Request<String>(path: target)) == "GET X-Trace")
    // Home, every credential goes (the good path).
    let all = Self.credentials.map(\.name).joined(separator: ",")
    #expect(try await client.send(Request<String>(path: "landing")) == "GET \(all),X-Trace")
  }

  @Test(
    "a middleware that sets Authorization on every request, unmarked: not to an absolute URL elsewhere; the endpoint's own goes"
  )
  func unmarkedMiddlewareCredential() async throws {
    /// A hurried user's auth middleware: no origin check, no mark.
    struct Token: Middleware {
      func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
        -> HTTPResponse
      {
        var request = request
        request.urlRequest.setValue("Bearer user-SECRET", forHTTPHeaderField: "Authorization")
        return try await next(request)
      }
    }
    let home = try landing()
    defer { home.stop() }
    let elsewhere = try landing()
    defer { elsewhere.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [Token()]
    let client = HTTPClient(baseURL: home.baseURL, configuration: configuration)
    let target = elsewhere.baseURL.appendingPathComponent("landing").absoluteString
    #expect(try await client.send(Request<String>(path: target)) == "GET ")
    #expect(try await client.send(Request<String>(path: "landing")) == "GET Authorization")
    // The endpoint's own Authorization for its own URL is the caller's choice: it goes, unless
    // the middleware changed it.
    let own = Request<String>(path: target, headers: ["Authorization": "Bearer user-SECRET"])
    #expect(try await client.send(own) == "GET Authorization")
    let other = Request<String>(path: target, headers: ["Authorization": "Bearer other"])
    #expect(try await client.send(other) == "GET ")
  }

  @Test("the same origin: every credential follows (the good path)", arguments: statuses)
  func sameOrigin(status: Int) async throws {
    let server = try LoopbackServer { request, response in
      guard request.path == "/landing" else {
        try await response.send(status: status, headers: ["Location": "/landing"], text: "")
        return
      }
      let names = Self.credentials.map(\.name).filter { request.headers[$0] != nil }
      try await response.send(text: names.joined(separator: ","))
    }
    defer { server.stop() }
    let answer = try await client(server.baseURL).send(Request<String>(path: "start"))
    #expect(answer == Self.credentials.map(\.name).joined(separator: ","), "\(status)")
  }

  @Test("a session of your own keeps credentials home too", arguments: [302, 307])
  func borrowedSession(status: Int) async throws {
    let elsewhere = try landing()
    defer { elsewhere.stop() }
    let target = elsewhere.baseURL.appendingPathComponent("landing").absoluteString
    let own = OwnSession()
    defer { own.invalidate() }
    let answer = try await landed(
      status: status, method: .get, target: target,
      transport: own.transport)
    #expect(answer == "GET X-Trace", "\(status): \(answer)")
  }

  @Test("downloads and byte streams keep credentials home", arguments: [302, 307])
  func transfers(status: Int) async throws {
    let elsewhere = try landing()
    defer { elsewhere.stop() }
    let target = elsewhere.baseURL.appendingPathComponent("landing").absoluteString
    let origin = try redirector(to: target, status: status)
    defer { origin.stop() }
    let client = client(origin.baseURL)
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let file = try await client.download(Request<Data>(path: "start"), to: scratch.file("d"))
      .finished()
    #expect(try String(contentsOf: file.url, encoding: .utf8) == "GET X-Trace")
    var streamed = Data()
    for try await chunk in try await client.bytes(Request<Data>(path: "start")) {
      streamed.append(chunk)
    }
    #expect(String(decoding: streamed, as: UTF8.self) == "GET X-Trace")
  }
}
