import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// What a background session on Apple platforms hands the system: the request as the
/// middleware shaped it, with the jar's cookies; the middleware sees a placeholder 202.
@Suite("The request a background transfer hands over")
struct ShapedRequestTests {
  struct Stamp: Middleware {
    let seen: Locked<[Int]>
    func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
      -> HTTPResponse
    {
      var request = request
      request.urlRequest.setValue("v2", forHTTPHeaderField: "X-Api-Version")
      let response = try await next(request)
      seen.withLock { $0.append(response.status) }
      return response
    }
  }

  @Test("The middleware's headers and the jar's cookies are on it; nothing is sent")
  func shaped() async throws {
    let seen = Locked<[Int]>([])
    let jar = CookieJar()
    jar.store(["session=s1; Path=/"], from: URL(string: "https://api.test/login")!)
    var configuration = HTTPClient.Configuration(middleware: [Stamp(seen: seen)])
    configuration.cookies = jar
    let stub = StubTransport()
    let client = HTTPClient(
      baseURL: URL(string: "https://api.test")!, configuration: configuration, transport: stub)
    let request = try await client.shapedRequest(for: Request<Data>(path: "trailers/42"))
    #expect(request.url?.absoluteString == "https://api.test/trailers/42")
    #expect(request.value(forHTTPHeaderField: "X-Api-Version") == "v2")
    #expect(request.value(forHTTPHeaderField: "Cookie") == "session=s1")
    #expect(seen.withLock { $0 } == [202])
    #expect(stub.requests.isEmpty)
  }

  @Test("A marked credential is on a request home, not on one to another origin's URL")
  func markedCredential() async throws {
    let client = HTTPClient(
      baseURL: URL(string: "https://api.test")!,
      configuration: HTTPClient.Configuration(middleware: [ClientIDMiddleware()]),
      transport: StubTransport())
    let home = try await client.shapedRequest(for: Request<Data>(path: "trailers/42"))
    let away = try await client.shapedRequest(for: Request<Data>(path: "https://cdn.test/42"))
    #expect(home.value(forHTTPHeaderField: "X-Client") == ClientIDMiddleware.value)
    #expect(away.value(forHTTPHeaderField: "X-Client") == nil)
  }

  /// Sets `X-Note` to `value` through `allHTTPHeaderFields`, which takes any value.
  struct RawNote: Middleware {
    let value: String
    func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
      -> HTTPResponse
    {
      var request = request
      var fields = request.urlRequest.allHTTPHeaderFields ?? [:]
      fields["X-Note"] = value
      request.urlRequest.allHTTPHeaderFields = fields
      return try await next(request)
    }
  }

  @Test("A middleware's header with CR or LF is refused before it is handed over")
  func checkedHeaders() async throws {
    for (value, refused) in [("a\r\nX-Injected: yes", true), ("a b", false)] {
      let client = HTTPClient(
        baseURL: URL(string: "https://api.test")!,
        configuration: HTTPClient.Configuration(middleware: [RawNote(value: value)]),
        transport: StubTransport())
      let shaped = await Result { () async throws(HTTPError) in
        try await client.shapedRequest(for: Request<Data>(path: "trailers/42"))
      }
      switch shaped {
      case .success(let request):
        #expect(!refused)
        #expect(request.value(forHTTPHeaderField: "X-Note") == value)
      case .failure(let error):
        #expect(refused, "\(error)")
        guard case .invalidRequest(let reason) = error else {
          Issue.record("not an invalid request: \(error)")
          continue
        }
        #expect(reason.contains("X-Note"))
      }
    }
  }
}
