import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@Suite("A redirect's bodies: the request's and the redirect's own", .timeLimit(.minutes(1)))
struct RedirectBodyTests {
  /// The fields that describe a request's body (Fetch's "request-body-header names").
  static let bodyFields = [
    "Content-Type", "Content-Encoding", "Content-Language", "Content-Location",
  ]

  /// Redirects `/start` to `/landing` with `status`; `/landing` answers with its method, the
  /// body fields it got, and its body's length.
  func server(status: Int) throws -> LoopbackServer {
    try LoopbackServer { request, response in
      guard request.path == "/landing" else {
        return try await response.send(status: status, headers: ["Location": "/landing"])
      }
      let fields = Self.bodyFields.filter { request.headers[$0] != nil }
      try await response.send(
        text: "\(request.method) \(fields.joined(separator: ",")) \(request.body.count)")
    }
  }

  /// A gzip-coded German body sent with `method`, its fields all set.
  func request(_ method: HTTPMethod) -> Request<String> {
    Request(
      method: method, path: "start",
      headers: [
        "Content-Encoding": "gzip", "Content-Language": "de", "Content-Location": "/drafts/1",
      ],
      body: .data(Data("abc".utf8), contentType: "text/plain"))
  }

  @Test(
    "a request turned into a GET sends none of its body's fields (a GET saying gzip has no body)",
    arguments: [(303, HTTPMethod.put), (303, .post), (302, .post), (301, .post)])
  func bodyFieldsDropped(status: Int, method: HTTPMethod) async throws {
    let server = try server(status: status)
    defer { server.stop() }
    let answer = try await HTTPClient(baseURL: server.baseURL).send(request(method))
    #expect(answer == "GET  0", "\(status) \(method.rawValue)")
  }

  @Test("307 and 308 send the body again with every one of its fields (the good path)")
  func bodyFieldsKept() async throws {
    for status in [307, 308] {
      let server = try server(status: status)
      defer { server.stop() }
      let answer = try await HTTPClient(baseURL: server.baseURL).send(request(.put))
      #expect(answer == "PUT \(Self.bodyFields.joined(separator: ",")) 3", "\(status)")
    }
  }
}
