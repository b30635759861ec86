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
}
