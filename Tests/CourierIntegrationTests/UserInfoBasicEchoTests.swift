import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A base URL's user info is a login: the libcurl transports (CurlTransport, and URLSession
/// on Linux) send it as Basic credentials, which the request's own headers do not show. A
/// server echoing the `Authorization` it got puts Basic's token of them in its answer, which
/// is the credential still. (URLSession on Apple platforms sends a URL's login only to answer
/// a challenge, which Courier turns down: nothing is sent there, and nothing can echo.)
@Suite("A base URL's user info, echoed as Basic", .timeLimit(.minutes(1)))
struct UserInfoBasicEchoTests {
  @Test("the Basic token of a URL's user info shows in no error, log line or event")
  func basicToken() async throws {
    let printed = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      LoggingMiddleware(level: .bodies) { line in printed.withLock { $0.append(line) } }
    ]
    configuration.observer = { event in printed.withLock { $0.append("\(event)") } }
    let server = try LoopbackServer { request, response in
      try await response.send(
        status: 403, text: "you sent \(request.headers["Authorization"] ?? "no Authorization")")
    }
    defer { server.stop() }
    let base = try #require(URL(string: "http://svc:pw-SECRET-3@127.0.0.1:\(server.port)"))
    let client = HTTPClient(baseURL: base, configuration: configuration)
    let caught = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(path: "me"))
    }
    let error = try #require(caught)
    let token = Data("svc:pw-SECRET-3".utf8).base64EncodedString()
    let body = String(decoding: error.response?.body ?? Data(), as: UTF8.self)
    let texts = ["\(error)", error.localizedDescription] + printed.withLock { $0 }
    for text in texts {
      #expect(!text.contains(token) && !text.contains("SECRET"), "\(text)")
    }
    #if canImport(FoundationNetworking)
      #expect(body == "you sent Basic \(token)")
      // The good-path twin: the rest of the answer shows.
      #expect("\(error)".contains("you sent Basic <redacted>"), "\(error)")
    #else
      #expect(body == "you sent no Authorization")
    #endif
  }
}
