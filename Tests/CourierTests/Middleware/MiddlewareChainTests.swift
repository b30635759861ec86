import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A middleware built from a closure, for tests.
struct Step: Middleware {
  let body: @Sendable (OutgoingRequest, MiddlewareNext) async throws(HTTPError) -> HTTPResponse

  func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
    -> HTTPResponse
  {
    try await body(request, next)
  }
}

@Suite("The middleware chain")
struct MiddlewareChainTests {
  func client(_ middleware: [any Middleware], stub: StubTransport) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.middleware = middleware
    return makeClient(transport: stub, configuration: configuration)
  }

  @Test("runs outermost first on the way out and last on the way back")
  func order() async throws {
    let log = Locked<[String]>([])
    func named(_ name: String) -> Step {
      Step { request, next throws(HTTPError) in
        log.withLock { $0.append("\(name) out") }
        let response = try await next(request)
        log.withLock { $0.append("\(name) back") }
        return response
      }
    }
    let stub = StubTransport().fallback { _ throws(HTTPError) in
      log.withLock { $0.append("transport") }
      return .status(200)
    }
    _ = try await client([named("a"), named("b")], stub: stub).send(Request<Data>(path: "x"))
    #expect(log.withLock { $0 } == ["a out", "b out", "transport", "b back", "a back"])
  }

  @Test("may change the request, and sees the endpoint's options")
  func changeRequest() async throws {
    let seenOptions = Locked<RequestOptions>([])
    let addHeader = Step { request, next throws(HTTPError) in
      seenOptions.withLock { $0 = request.options }
      var request = request
      request.headers["X-Trace"] = "t-1"
      request.headers["Accept"] = nil
      return try await next(request)
    }
    let stub = StubTransport().fallback { request throws(HTTPError) in
      StubResponse(
        text:
          "\(request.value(forHTTPHeaderField: "X-Trace") ?? "-") \(request.value(forHTTPHeaderField: "Accept") ?? "-")"
      )
    }
    let endpoint = Request<String>(path: "x", headers: ["Accept": "text/plain"], options: .noRetry)
    #expect(try await client([addHeader], stub: stub).send(endpoint) == "t-1 -")
    #expect(seenOptions.withLock { $0 } == .noRetry)
  }

  @Test("may set a body on the head (httpBody), which is sent; a header set in place too")
  func bodyOnTheHead() async throws {
    let signs = Step { request, next throws(HTTPError) in
      var request = request
      request.urlRequest.httpBody = Data("signed".utf8)
      request.urlRequest.setValue("v1", forHTTPHeaderField: "X-Signature")
      #expect(request.body?.data == Data("signed".utf8))
      return try await next(request)
    }
    let stub = StubTransport().fallback { request throws(HTTPError) in
      let body = request.httpBody.map { String(decoding: $0, as: UTF8.self) } ?? "-"
      return StubResponse(
        text: "\(body) \(request.value(forHTTPHeaderField: "X-Signature") ?? "-")")
    }
    let endpoint = Request<String>(method: .post, path: "x")
    #expect(try await client([signs], stub: stub).send(endpoint) == "signed v1")
  }

  @Test("may answer without calling next")
  func shortCircuit() async throws {
    let cached = Step { request, _ throws(HTTPError) in
      HTTPResponse(status: 200, body: Data("cached".utf8), url: request.url)
    }
    let stub = StubTransport()
    #expect(try await client([cached], stub: stub).send(Request<String>(path: "x")) == "cached")
    #expect(stub.requests.isEmpty)
  }

  @Test("may call next more than once and map errors")
  func callTwiceAndMapErrors() async throws {
    let twice = Step { request, next throws(HTTPError) in
      _ = try? await next(request)
      return try await next(request)
    }
    let stub = StubTransport().fallback { _ throws(HTTPError) in .status(204) }
    _ = try await client([twice], stub: stub).send(Request<EmptyResponse>(path: "x"))
    #expect(stub.requests.count == 2)

    let mapping = Step { request, next throws(HTTPError) in
      do throws(HTTPError) {
        return try await next(request)
      } catch .timedOut {
        return HTTPResponse(status: 504, url: request.url)
      }
    }
    let slow = StubTransport().fallback { _ throws(HTTPError) in throw .timedOut }
    let error = await #expect(throws: HTTPError.self) {
      try await client([mapping], stub: slow).send(Request<Data>(path: "x"))
    }
    #expect(error?.status == 504)
  }
}
