import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("A dump or mirror of values that hold headers redacts credentials as descriptions do")
struct RedactionMirrorTests {
  /// Everything a user may reach for to look inside a value.
  func looks(at value: some Any) -> String {
    var dumped = ""
    dump(value, to: &dumped)
    let children = Mirror(reflecting: value).children.map { "\($0.label ?? ""): \($0.value)" }
    return [dumped, String(reflecting: value), children.joined(separator: "\n")]
      .joined(separator: "\n")
  }

  /// Keeps the request as the middleware after it sees it (a credential marked by then).
  struct Keeping: Middleware {
    let kept: Locked<OutgoingRequest?>

    func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
      -> HTTPResponse
    {
      kept.withLock { $0 = request }
      return try await next(request)
    }
  }

  static let headers: HTTPHeaders = [
    "Authorization": "Bearer S3CRET-AUTH", "Cookie": "session=S3CRET-COOKIE",
    "X-Api-Key": "S3CRET-KEY", "Accept": "application/json", "X-Trace": "trace-42",
  ]

  @Test("headers, their fields and values that hold them show no credential's value")
  func headers() {
    let request = Request<Data>(path: "me", headers: Self.headers)
    var configuration = HTTPClient.Configuration()
    configuration.headers = Self.headers
    for value in [
      looks(at: Self.headers), looks(at: Self.headers.fields), looks(at: Self.headers.fields[0]),
      looks(at: request), looks(at: configuration),
      looks(at: TransportRequest(head: URLRequest(headers: Self.headers))),
    ] {
      #expect(!value.contains("S3CRET"), "\(value)")
      #expect(value.contains("<redacted>"), "\(value)")
    }
  }

  @Test("a plain header's value, a status and a URL still show")
  func plainValuesShow() {
    let response = HTTPResponse(
      status: 404, headers: Self.headers, url: URL(string: "https://api.example.com/3/me"))
    for value in [
      looks(at: Self.headers), looks(at: request()), looks(at: response),
      looks(at: TransportRequest(head: URLRequest(headers: Self.headers))),
    ] {
      #expect(value.contains("application/json") && value.contains("trace-42"), "\(value)")
    }
    #expect(looks(at: response).contains("404"))
    #expect(looks(at: response).contains("https://api.example.com/3/me"))
  }

  static let query: Query = [
    "api_key": "S3CRET-KEY", "token": ["S3CRET-ONE", "S3CRET-TWO"], "page": 2,
    "language": "en-GB",
  ]

  @Test("a query, its items and a request that holds it show no credential's value")
  func query() {
    let request = Request<Data>(path: "movie/popular", query: Self.query)
    for value in [
      looks(at: Self.query), looks(at: Self.query.items), looks(at: Self.query.items[0]),
      looks(at: request),
    ] {
      #expect(!value.contains("S3CRET"), "\(value)")
      #expect(value.contains("<redacted>"), "\(value)")
    }
  }

  @Test("a query's plain items still show their names and values")
  func plainQueryShows() {
    let value = looks(at: Request<Data>(path: "movie/popular", query: Self.query))
    #expect(value.contains("api_key") && value.contains("token"), "\(value)")
    #expect(value.contains("en-GB") && value.contains("2"), "\(value)")
  }

  func request() -> Request<Data> {
    Request<Data>(path: "me", headers: Self.headers)
  }

  @Test("the request a middleware sees and the error's response redact a name it marked too")
  func markedNames() async throws {
    let kept = Locked<OutgoingRequest?>(nil)
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [ClientIDMiddleware(), Keeping(kept: kept)]
    let stub = StubTransport().fallback { request throws(HTTPError) in
      // An API that echoes its caller's credentials in a header of its own.
      StubResponse(
        status: 401,
        headers: ["X-Echo": request.value(forHTTPHeaderField: "X-Client") ?? "", "X-Trace": "t"])
    }
    let client = makeClient(transport: stub, configuration: configuration)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(request())
    }
    let outgoing = try #require(kept.withLock { $0 })
    let response = try #require(error?.response)
    for value in [looks(at: outgoing), looks(at: error), looks(at: response)] {
      #expect(!value.contains("S3CRET") && !value.contains(ClientIDMiddleware.value), "\(value)")
      #expect(value.contains("<redacted>"), "\(value)")
    }
    #expect(looks(at: outgoing).contains("application/json"))
  }
}

extension URLRequest {
  fileprivate init(headers: HTTPHeaders) {
    self.init(url: URL(string: "https://api.example.com/3/me?api_key=S3CRET-QUERY")!)
    for field in headers { setValue(field.value, forHTTPHeaderField: field.name) }
  }
}
