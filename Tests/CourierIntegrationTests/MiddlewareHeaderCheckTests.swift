import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A header a middleware sets is held to the rule an endpoint's is: no CR, LF or other
/// control character in a value, a token for a name. `URLRequest.allHTTPHeaderFields` takes
/// any value as it is, and libcurl sends it as it is.
@Suite("Headers a middleware sets", .timeLimit(.minutes(1)))
struct MiddlewareHeaderCheckTests {
  /// Sets `fields` through `allHTTPHeaderFields`, as a middleware copying headers would.
  struct RawHeaders: Middleware {
    let fields: [String: String]
    func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
      -> HTTPResponse
    {
      var request = request
      var all = request.urlRequest.allHTTPHeaderFields ?? [:]
      all.merge(fields) { $1 }
      request.urlRequest.allHTTPHeaderFields = all
      return try await next(request)
    }
  }

  /// A loopback server answering with the `X-Injected` and `X-Note` fields it got, and a
  /// client whose one middleware sets `fields`.
  func loopback(setting fields: [String: String]) throws -> Loopback {
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [RawHeaders(fields: fields)]
    return try Loopback(configuration: configuration) { request, response in
      let seen = [request.headers["X-Injected"], request.headers["X-Note"]]
      try await response.send(text: seen.map { $0 ?? "-" }.joined(separator: " "))
    }
  }

  @Test(
    "a middleware's header with CR, LF or a bad name is refused; nothing reaches the server",
    arguments: [
      ["X-Note": "a\r\nX-Injected: yes"], ["X-Note": "a\nX-Injected: yes"], ["X Note": "a"],
    ])
  func refused(fields: [String: String]) async throws {
    let loopback = try loopback(setting: fields)
    defer { loopback.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(Request<String>(path: "x"))
    }
    guard case .invalidRequest(let reason) = error else {
      Issue.record("not refused as an invalid request: \(String(describing: error))")
      return
    }
    #expect(!reason.contains("X-Injected"), "the value stays out of the reason")
    #expect(loopback.server.requestCount == 0)
  }

  @Test("a middleware's header of a token name and a clean value goes out as set")
  func clean() async throws {
    let loopback = try loopback(setting: ["X-Note": "a b\tc"])
    defer { loopback.stop() }
    #expect(try await loopback.client.send(Request<String>(path: "x")) == "- a b\tc")
  }

  /// Sets the method, as a middleware that tunnels one would.
  struct SettingMethod: Middleware {
    let method: String
    func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
      -> HTTPResponse
    {
      var request = request
      request.urlRequest.httpMethod = method
      return try await next(request)
    }
  }

  /// A loopback server answering with the method it got, and a client whose one middleware
  /// sets `method`.
  func loopback(method: String) throws -> Loopback {
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [SettingMethod(method: method)]
    return try Loopback(configuration: configuration) { request, response in
      try await response.send(text: request.method)
    }
  }

  @Test("a middleware's method that is not a token is refused; nothing reaches the server")
  func badMethod() async throws {
    let loopback = try loopback(method: "GET /x HTTP/1.1\r\nX-Injected: yes\r\n\r\nGET")
    defer { loopback.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(Request<String>(path: "x"))
    }
    #expect(error?.invalidRequestReason?.contains("method") == true, "\(String(describing: error))")
    #expect(loopback.server.requestCount == 0)
  }

  @Test("a middleware's method that is a token goes out")
  func tokenMethod() async throws {
    let loopback = try loopback(method: "PUT")
    defer { loopback.stop() }
    #expect(try await loopback.client.send(Request<String>(path: "x")) == "PUT")
  }

  @Test("a middleware's header with CR or LF on a WebSocket upgrade is refused; nothing is sent")
  func webSocketUpgrade() async throws {
    for (value, refused) in [("a\r\nX-Injected: yes", true), ("a b", false)] {
      let stub = StubTransport().onWebSocket("/chat") { socket in
        try await socket.echoUntilClosed()
      }
      var configuration = HTTPClient.Configuration()
      configuration.middleware = [RawHeaders(fields: ["X-Note": value])]
      let client = HTTPClient(
        baseURL: URL(string: "wss://chat.test")!, configuration: configuration, transport: stub)
      let opened = await Result { () async throws(HTTPError) in
        try await client.webSocket(Request<Data>(path: "chat"), settings: .init(pingInterval: nil))
      }
      switch opened {
      case .success(let socket):
        #expect(!refused)
        #expect(stub.requests.first?.value(forHTTPHeaderField: "X-Note") == value)
        await socket.close()
      case .failure(let error):
        #expect(refused, "\(error)")
        #expect(error.invalidRequestReason?.contains("X-Note") == true, "\(error)")
        #expect(stub.requests.isEmpty)
      }
    }
  }
}
