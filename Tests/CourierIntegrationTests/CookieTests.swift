import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Cookies through the client", .timeLimit(.minutes(1)))
struct CookieTests {
  /// `/login` sets a session cookie and redirects to `/home`; every path answers with the
  /// `Cookie` field it got.
  func server() throws -> LoopbackServer {
    try LoopbackServer { request, response in
      switch request.path {
      case "/login":
        try await response.send(
          status: 302,
          headers: ["Set-Cookie": "session=s3cret; Path=/; HttpOnly", "Location": "/home"])
      case "/prefs":
        var headers: HTTPHeaders = [:]
        headers.add("Set-Cookie", "theme=dark; Max-Age=3600")
        headers.add("Set-Cookie", "lang=en")
        try await response.send(headers: headers, text: "ok")
      case "/logout":
        try await response.send(headers: ["Set-Cookie": "session=; Max-Age=0; Path=/"], text: "bye")
      default:
        try await response.send(text: request.headers["Cookie"] ?? "-")
      }
    }
  }

  func client(_ server: LoopbackServer, jar: CookieJar?, transport: (any HTTPTransport)? = nil)
    -> HTTPClient
  {
    var configuration = HTTPClient.Configuration()
    configuration.cookies = jar
    return HTTPClient(baseURL: server.baseURL, configuration: configuration, transport: transport)
  }

  @Test(
    "a cookie set on a redirect goes with its next hop, the next requests, and not after it expires"
  )
  func roundTrip() async throws {
    let server = try server()
    defer { server.stop() }
    let jar = CookieJar()
    let client = client(server, jar: jar)
    #expect(try await client.send(Request<String>(path: "login")) == "session=s3cret")
    #expect(try await client.send(Request<String>(path: "me")) == "session=s3cret")
    _ = try await client.send(Request<String>(path: "prefs"))
    #expect(
      try await client.send(Request<String>(path: "me")) == "session=s3cret; theme=dark; lang=en")
    _ = try await client.send(Request<String>(path: "logout"))
    #expect(try await client.send(Request<String>(path: "me")) == "theme=dark; lang=en")
    #expect(jar.cookies.map(\.name).sorted() == ["lang", "theme"])
  }

  @Test("the jar's cookies are credentials: an error that echoes one does not show it")
  func redactedInErrors() async throws {
    let server = try LoopbackServer { request, response in
      if request.path == "/login" {
        try await response.send(headers: ["Set-Cookie": "session=hush-9f2c"], text: "in")
      } else {
        let cookie = request.headers["Cookie"] ?? ""
        let value = cookie.split(separator: "=").last.map(String.init) ?? ""
        try await response.send(status: 500, text: "bad cookie: \(cookie), value \(value)")
      }
    }
    defer { server.stop() }
    let lines = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.cookies = CookieJar()
    configuration.middleware = [
      LoggingMiddleware(level: .bodies) { line in lines.withLock { $0.append(line) } }
    ]
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    _ = try await client.send(Request<String>(path: "login"))
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(path: "echo"))
    }
    // The payload itself is kept, for decoding; its description is not.
    #expect(error?.response?.body == Data("bad cookie: session=hush-9f2c, value hush-9f2c".utf8))
    #expect(!"\(error.map { "\($0)" } ?? "")".contains("hush-9f2c"))
    #expect(!lines.withLock { $0 }.joined().contains("hush-9f2c"))
  }

  @Test("a cookie you set yourself goes first, the jar's after it")
  func ownCookieKept() async throws {
    let server = try server()
    defer { server.stop() }
    let jar = CookieJar()
    jar.store(["a=1"], from: server.baseURL)
    let client = client(server, jar: jar)
    let answer = try await client.send(Request<String>(path: "me", headers: ["Cookie": "mine=2"]))
    #expect(answer == "mine=2; a=1")
  }

  @Test("a cookie you set yourself follows a redirect within its origin, beside the jar's")
  func ownCookieFollowsRedirect() async throws {
    let server = try server()
    defer { server.stop() }
    let client = client(server, jar: CookieJar())
    let answer = try await client.send(
      Request<String>(path: "login", headers: ["Cookie": "mine=2"]))
    #expect(answer == "mine=2; session=s3cret")
  }

  @Test("a cookie you set yourself does not follow a redirect to another origin, with a jar")
  func ownCookieStaysHome() async throws {
    let elsewhere = try server()
    defer { elsewhere.stop() }
    let target = elsewhere.baseURL.appendingPathComponent("me").absoluteString
    let origin = try LoopbackServer { request, response in
      try await response.send(status: 302, headers: ["Location": target])
    }
    defer { origin.stop() }
    let jar = CookieJar()
    jar.store(["there=1"], from: elsewhere.baseURL)
    let answer = try await client(origin, jar: jar).send(
      Request<String>(path: "go", headers: ["Cookie": "mine=2"]))
    #expect(answer == "there=1")
  }

  @Test("cookies given in several Cookie fields go as one, joined by '; ', the jar's after")
  func ownCookieFieldsJoined() async throws {
    let server = try server()
    defer { server.stop() }
    let jar = CookieJar()
    jar.store(["a=1"], from: server.baseURL)
    var headers = HTTPHeaders()
    headers.add("Cookie", "mine=2")
    headers.add("cookie", "theirs=3")
    // A comma is no separator for cookies: the server would read one cookie, "2,theirs=3".
    let client = client(server, jar: jar)
    let answer = try await client.send(Request<String>(path: "me", headers: headers))
    #expect(answer == "mine=2; theirs=3; a=1")
    let built = try client.urlRequest(for: Request<String>(path: "me", headers: headers))
    #expect(built.value(forHTTPHeaderField: "Cookie") == "mine=2; theirs=3")
    // Set by middleware, as the headers of an OpenAPI request or an HTTP/2 one are split.
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [CookieFieldsMiddleware(headers: headers)]
    let viaMiddleware = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    #expect(try await viaMiddleware.send(Request<String>(path: "me")) == "mine=2; theirs=3")
    // Other repeated fields are still a list, joined by commas.
    var accept = HTTPHeaders()
    accept.add("Accept", "text/plain")
    accept.add("Accept", "text/html")
    let listed = try client.urlRequest(for: Request<String>(path: "me", headers: accept))
    #expect(
      listed.value(forHTTPHeaderField: "Accept")?.replacingOccurrences(of: " ", with: "")
        == "text/plain,text/html")
  }

  @Test("without a jar nothing is stored or sent, on every transport")
  func offByDefault() async throws {
    let server = try server()
    defer { server.stop() }
    let client = client(server, jar: nil)
    #expect(try await client.send(Request<String>(path: "login")) == "-")
    #expect(try await client.send(Request<String>(path: "me")) == "-")
  }

  @Test("a cookie stays with its host: another host (localhost for 127.0.0.1) gets none")
  func staysHome() async throws {
    let server = try server()
    defer { server.stop() }
    let jar = CookieJar()
    let client = client(server, jar: jar)
    _ = try await client.send(Request<String>(path: "login"))
    let other = URL(string: "http://localhost:\(server.port)/me")!
    #expect(jar.header(for: other) == nil)
    #expect(try await client.send(Request<String>(path: other.absoluteString)) == "-")
  }

  @Test("URLSession's own cookie storage stays out: each cookie is sent once")
  func sessionCookiesOff() async throws {
    let server = try server()
    defer { server.stop() }
    let configuration = URLSessionTransport.defaultSessionConfiguration(acceptsCookies: true)
    let storage = configuration.httpCookieStorage
    defer {
      for cookie in storage?.cookies(for: server.baseURL) ?? [] { storage?.deleteCookie(cookie) }
    }
    let client = client(
      server, jar: CookieJar(), transport: URLSessionTransport(configuration: configuration))
    _ = try await client.send(Request<String>(path: "login"))
    #expect(try await client.send(Request<String>(path: "me")) == "session=s3cret")
  }

  @Test("a jar on disk keeps persistent cookies, owner-only; session cookies stay in memory")
  func persisted() async throws {
    let server = try server()
    defer { server.stop() }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "cookies-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: file) }
    let client = client(server, jar: try CookieJar(persistingTo: file))
    _ = try await client.send(Request<String>(path: "login"))
    _ = try await client.send(Request<String>(path: "prefs"))
    let reopened = try CookieJar(persistingTo: file)
    #expect(reopened.cookies.map(\.name) == ["theme"])
    let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions]
    #expect((permissions as? NSNumber)?.intValue == 0o600)
  }

  @Test("a file that is not a jar is refused with a clear error, and left alone")
  func notAJar() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "cookies-\(UUID().uuidString).json")
    try Data("not json".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    #expect(throws: HTTPError.self) { try CookieJar(persistingTo: file) }
    #expect(try Data(contentsOf: file) == Data("not json".utf8))
  }
}

/// Sets the request's headers to its own, as a middleware that adds fields does.
private struct CookieFieldsMiddleware: Middleware {
  let headers: HTTPHeaders

  func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
    -> HTTPResponse
  {
    var request = request
    request.headers = request.headers.merging(headers)
    return try await next(request)
  }
}
