import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@Suite("A redirect's fragment keeps its credentials out of print", .timeLimit(.minutes(1)))
struct RedirectFragmentTests {
  /// OAuth's implicit flow answers with the token in the fragment of its redirect: to an
  /// app's own scheme (refused: not http or https) or to a page of the same site (followed,
  /// the fragment kept for the final URL, RFC 9110 §10.2.2).
  @Test("a token in a redirect's fragment is redacted in errors, events and logs")
  func tokenInFragment() async throws {
    let fragment = "#access_token=tok-SECRET&expires_in=3600&state=xyz"
    let server = try LoopbackServer { request, response in
      switch request.path {
      case "/3/app":
        try await response.send(status: 302, headers: ["Location": "myapp://cb" + fragment])
      case "/3/page":
        try await response.send(status: 302, headers: ["Location": "/3/end" + fragment])
      default: try await response.send(status: 404, text: "no")
      }
    }
    defer { server.stop() }
    let printed = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      LoggingMiddleware(level: .headers) { line in printed.withLock { $0.append(line) } }
    ]
    configuration.observer = { event in printed.withLock { $0.append("\(event)") } }
    let client = HTTPClient(
      baseURL: server.baseURL.appendingPathComponent("3"), configuration: configuration)
    let shown = "#access_token=<redacted>&expires_in=3600&state=xyz"
    let refused = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "app"))
    }
    #expect(
      refused?.description.contains("myapp://cb" + shown) == true, "\(String(describing: refused))")
    let missing = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "page"))
    }
    #expect(
      missing?.description.contains("/3/end" + shown) == true, "\(String(describing: missing))")
    // Not followed, the redirect itself: its Location as logged and described.
    configuration.redirects = .never
    configuration.acceptableStatusCodes = StatusCodes(200..<400)
    let direct = HTTPClient(
      baseURL: server.baseURL.appendingPathComponent("3"), configuration: configuration)
    let redirect = try await direct.response(for: Request<Data>(path: "app")).response
    #expect("\(redirect)".contains("Location: myapp://cb" + shown), "\(redirect)")
    var dumped = ""
    dump(missing, to: &dumped)
    let texts = printed.withLock { $0 } + [dumped, "\(String(describing: refused))", "\(redirect)"]
    for text in texts {
      #expect(!text.contains("tok-SECRET"), "\(text)")
    }
    #expect(texts.contains { $0.contains("Location: myapp://cb" + shown) })
  }
}
