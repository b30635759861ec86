import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Redirects to anything but http and https are refused", .timeLimit(.minutes(1)))
struct RedirectSchemeTests {
  /// A server that redirects `/start` to `target` and answers anything else with 200.
  func redirector(to target: @escaping @Sendable (Int) -> String, status: Int) throws
    -> LoopbackServer
  {
    try LoopbackServer { request, response in
      guard request.path == "/start" else {
        try await response.send(text: "followed to \(request.path)")
        return
      }
      // The server's own port, for targets such as ftp://127.0.0.1:PORT/.
      let port = Int(request.headers["Host"]?.split(separator: ":").last ?? "") ?? 0
      try await response.send(status: status, headers: ["Location": target(port)], text: "moved")
    }
  }

  /// Expects `operation` to fail with `transport(URLError(.unsupportedURL))`.
  func expectRefused(
    _ label: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async throws -> Void
  ) async {
    let error = await #expect(throws: HTTPError.self, sourceLocation: sourceLocation) {
      try await operation()
    }
    guard case .transport(let urlError) = error else {
      Issue.record("\(label): \(String(describing: error))", sourceLocation: sourceLocation)
      return
    }
    #expect(urlError.code == .unsupportedURL, "\(label)", sourceLocation: sourceLocation)
  }

  static let targets: [String] = [
    "file:///etc/passwd", "ftp://127.0.0.1:PORT/", "gopher://127.0.0.1:PORT/x", "data:,hello",
  ]

  @Test(
    "send: a redirect to file:, ftp:, gopher: or data: fails before anything is sent there",
    arguments: [301, 302, 303, 307, 308], [HTTPMethod.get, .post])
  func send(status: Int, method: HTTPMethod) async throws {
    for target in Self.targets {
      let server = try redirector(
        to: { target.replacingOccurrences(of: "PORT", with: "\($0)") }, status: status)
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL)
      let body: RequestBody? = method == .post ? .json(["x": 1]) : nil
      await expectRefused("\(status) \(method.rawValue) \(target)") {
        _ = try await client.send(Request<String>(method: method, path: "start", body: body))
      }
      // Only the redirecting request arrived: nothing went to /etc/passwd on this origin,
      // and no FTP or gopher conversation was started on this port.
      #expect(server.requestCount == 1, "\(status) \(method.rawValue) \(target)")
      #expect(server.connectionCount == 1, "\(status) \(method.rawValue) \(target)")
    }
  }

  @Test("an http redirect on the same server is followed (the good path)")
  func httpFollowed() async throws {
    let server = try redirector(to: { _ in "/landing" }, status: 302)
    defer { server.stop() }
    let answer = try await HTTPClient(baseURL: server.baseURL).send(Request<String>(path: "start"))
    #expect(answer == "followed to /landing")
  }

  @Test("HTTP: in capitals is http: — in a Location and in a base URL — on every transport")
  func schemeInCapitals() async throws {
    let server = try redirector(to: { "HTTP://127.0.0.1:\($0)/landing" }, status: 302)
    defer { server.stop() }
    let base = try #require(URL(string: "HTTP://127.0.0.1:\(server.port)"))
    let answer = try await HTTPClient(baseURL: base).send(Request<String>(path: "start"))
    #expect(answer == "followed to /landing")
  }

  @Test("downloads and byte streams refuse them too, leaving no file")
  func transfers() async throws {
    for target in ["file:///etc/passwd", "ftp://127.0.0.1:PORT/"] {
      let server = try redirector(
        to: { target.replacingOccurrences(of: "PORT", with: "\($0)") }, status: 302)
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL)
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      await expectRefused("download \(target)") {
        _ = try await client.download(Request<Data>(path: "start"), to: scratch.file("f"))
          .finished()
      }
      #expect(scratch.contents.isEmpty)
      await expectRefused("bytes \(target)") {
        _ = try await client.bytes(Request<Data>(path: "start"))
      }
      #expect(server.requestCount == 2, "\(target)")
    }
  }

  @Test("a session of your own refuses them too")
  func borrowedSession() async throws {
    let server = try redirector(to: { _ in "file:///etc/passwd" }, status: 302)
    defer { server.stop() }
    let own = OwnSession()
    defer { own.invalidate() }
    let client = HTTPClient(
      baseURL: server.baseURL, transport: own.transport)
    await expectRefused("borrowed session") {
      _ = try await client.send(Request<String>(path: "start"))
    }
    #expect(server.requestCount == 1)
  }
}
