import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("A redirect's Location fields, as a hostile server writes them", .timeLimit(.minutes(1)))
struct RedirectLocationTests {
  /// Answers `/start` with a 302 whose `Location` fields are `fields` (raw lines), and
  /// anything else with the target it was asked for.
  func server(_ fields: [String]) throws -> LoopbackServer {
    try LoopbackServer { request, response in
      guard request.path == "/start" else {
        return try await response.send(text: "landed on \(request.target)")
      }
      let head = (["HTTP/1.1 302 Found"] + fields + ["Content-Length: 0", "", ""])
        .joined(separator: "\r\n")
      try await response.sendRaw(Data(head.utf8))
    }
  }

  @Test(
    "two Location fields that differ are a bad response on every transport, followed nowhere",
    arguments: [
      ["Location: /landing", "Location: /elsewhere"],
      ["Location: /landing", "Location: http://127.0.0.1:1/elsewhere"],
      ["Location:", "Location: /landing"],
    ])
  func conflicting(fields: [String]) async throws {
    let server = try server(fields)
    defer { server.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await HTTPClient(baseURL: server.baseURL).send(Request<String>(path: "start"))
    }
    #expect(error?.urlErrorCode == .badServerResponse, "\(String(describing: error))")
    #expect("\(String(describing: error))".contains("Location"))
    #expect(server.requestCount == 1)
  }

  @Test(
    "a Location repeating the request's scheme without // is the relative reference after it",
    arguments: [
      ("Location: http:landing", "/landing"), ("Location: HTTP:/landing?x=1", "/landing?x=1"),
    ])
  func schemeRelative(field: String, target: String) async throws {
    let server = try server([field])
    defer { server.stop() }
    let answer = try await HTTPClient(baseURL: server.baseURL).send(Request<String>(path: "start"))
    #expect(answer == "landed on \(target)")
    #expect(server.requestCount == 2)
  }

  @Test(
    "a Location of another scheme without //, or the same scheme before a backslash, is refused",
    // Browsers read `http:\\evil.com` as `http://evil.com`; Foundation's parsers differ by
    // OS version on it: it is no relative reference to follow.
    arguments: [
      "Location: https:landing", "Location: http:\\\\evil.test/x", "Location: http:/\\evil.test",
    ])
  func otherSchemeWithoutAuthority(field: String) async throws {
    let server = try server([field])
    defer { server.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await HTTPClient(baseURL: server.baseURL).send(Request<String>(path: "start"))
    }
    #expect(error?.urlErrorCode == .unsupportedURL, "\(String(describing: error))")
    #expect(server.requestCount == 1)
  }

  @Test("the same Location twice is one target, followed on every transport (the good path)")
  func repeated() async throws {
    let server = try server(["Location: /landing", "Location:  /landing "])
    defer { server.stop() }
    let answer = try await HTTPClient(baseURL: server.baseURL).send(Request<String>(path: "start"))
    #expect(answer == "landed on /landing")
  }
}
