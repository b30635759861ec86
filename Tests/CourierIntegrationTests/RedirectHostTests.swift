import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@Suite("A Host field the caller set names its own server only", .timeLimit(.minutes(1)))
struct RedirectHostTests {
  /// A virtual host reached by address, as a caller tests one before its DNS is set up.
  static let request = Request<String>(path: "start", headers: ["Host": "internal.example"])

  @Test(
    "a redirect to another origin names the new server, not the caller's host",
    arguments: [301, 302, 303, 307, 308])
  func otherOrigin(status: Int) async throws {
    let landing = try LoopbackServer { request, response in
      try await response.send(text: request.headers["Host"] ?? "-")
    }
    defer { landing.stop() }
    let target = landing.baseURL.appendingPathComponent("landing").absoluteString
    let origin = try LoopbackServer { _, response in
      try await response.send(status: status, headers: ["Location": target])
    }
    defer { origin.stop() }
    let answer = try await HTTPClient(baseURL: origin.baseURL).send(Self.request)
    #expect(answer == "127.0.0.1:\(landing.port)", "\(status)")
  }

  @Test("a redirect within the origin keeps it (the good path)")
  func sameOrigin() async throws {
    let server = try LoopbackServer { request, response in
      guard request.path == "/landing" else {
        return try await response.send(status: 302, headers: ["Location": "/landing"])
      }
      try await response.send(text: request.headers["Host"] ?? "-")
    }
    defer { server.stop() }
    let answer = try await HTTPClient(baseURL: server.baseURL).send(Self.request)
    #expect(answer == "internal.example")
  }
}
