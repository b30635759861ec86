import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A redirect's last hop is a request of its own: to another origin, it carries that
/// origin's cookies from the client's jar, which the first request never held. What its
/// server echoes of them is as secret as what the first one would echo of its own.
@Suite("What a redirect's last hop sent, echoed back", .timeLimit(.minutes(1)))
struct RedirectSecretEchoTests {
  @Test("the jar's cookie for the origin a redirect leads to shows in no error, log or event")
  func jarCookieOfTarget() async throws {
    let target = try LoopbackServer { request, response in
      if request.path == "/login" {
        try await response.send(
          headers: ["Set-Cookie": "sid=jar-SECRET-cookie-1; Path=/"], text: "welcome")
      } else {
        let cookie = request.headers["Cookie"] ?? "-"
        let trace = request.headers["X-Trace"] ?? "-"
        try await response.send(status: 401, text: "you sent Cookie: \(cookie) X-Trace: \(trace)")
      }
    }
    defer { target.stop() }
    // Another host name than the client's, so that the jar's cookie for it goes there alone
    // (cookies do not tell ports apart).
    let elsewhere = "http://localhost:\(target.port)"
    let origin = try LoopbackServer { _, response in
      try await response.send(status: 302, headers: ["Location": "\(elsewhere)/private"])
    }
    defer { origin.stop() }
    let printed = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.cookies = CookieJar()
    configuration.headers = ["X-Trace": "trace-visible"]
    configuration.middleware = [
      LoggingMiddleware(level: .bodies) { line in printed.withLock { $0.append(line) } }
    ]
    configuration.observer = { event in printed.withLock { $0.append("\(event)") } }
    let client = HTTPClient(baseURL: origin.baseURL, configuration: configuration)
    #expect(try await client.send(Request<String>(path: "\(elsewhere)/login")) == "welcome")
    let caught = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(path: "go"))
    }
    let error = try #require(caught)
    // The last hop did carry it, and the server echoed it.
    let body = String(decoding: error.response?.body ?? Data(), as: UTF8.self)
    #expect(body.contains("sid=jar-SECRET-cookie-1"))
    let texts = error.printedForms + printed.withLock { $0 }
    for text in texts {
      #expect(!text.contains("SECRET"), "\(text)")
    }
    // The good-path twin: what is no credential shows in the same excerpt.
    #expect("\(error)".contains("X-Trace: trace-visible"), "\(error)")
  }
}
