import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The one redirect rule transports that follow redirects themselves share.
@Suite("RedirectPolicy.request(after:to:hops:)")
struct RedirectPolicyTests {
  let origin = URL(string: "https://api.test/3/start")!

  func request(_ method: String, body: Data? = Data("x".utf8)) -> TransportRequest {
    var head = URLRequest(url: origin)
    head.httpMethod = method
    head.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
    head.setValue("k", forHTTPHeaderField: "X-Key")
    head.setValue("text/plain", forHTTPHeaderField: "Content-Type")
    var request = TransportRequest(head: head)
    request.body = body.map { .data($0) }
    return request
  }

  func redirect(_ status: Int, to location: String?) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: location.map { ["Location": $0] } ?? [:], url: origin)
  }

  @Test("307 and 308 keep the method and the body; the target resolves against the URL")
  func keepsBody() throws {
    for status in [307, 308] {
      let next = try #require(
        try RedirectPolicy.default.request(
          after: redirect(status, to: "/3/next"), to: request("PUT"), hops: 1))
      #expect(next.head.url?.absoluteString == "https://api.test/3/next")
      #expect(next.head.httpMethod == "PUT")
      #expect(next.body?.data == Data("x".utf8))
      #expect(next.head.value(forHTTPHeaderField: "Authorization") == "Bearer s3cret")
    }
  }

  @Test("a Location whose scheme is in capitals leads to the same URL, its scheme in lower case")
  func schemeInCapitals() throws {
    for (location, expected) in [
      ("HTTP://api.test/a", "http://api.test/a"),
      ("Https://cdn.test/b?q=1", "https://cdn.test/b?q=1"),
      ("https://api.test/c", "https://api.test/c"),
    ] {
      let next = try #require(
        try RedirectPolicy.default.request(
          after: redirect(302, to: location), to: request("GET"), hops: 1))
      #expect(next.head.url?.absoluteString == expected)
    }
  }

  @Test("307 and 308 refuse a one-time stream once sent, with a clear error; a 303 drops it")
  func oneTimeStream() async throws {
    for status in [307, 308] {
      var sent = request("POST")
      sent.body = .stream(
        AsyncStream {
          $0.yield(Data("x".utf8))
          $0.finish()
        })
      // Not yet opened (nothing was sent): it may still go.
      #expect(
        try RedirectPolicy.default.request(
          after: redirect(status, to: "/3/next"), to: sent, hops: 1) != nil)
      _ = try await sent.body?.collect()
      let error = #expect(throws: HTTPError.self) {
        try RedirectPolicy.default.request(
          after: redirect(status, to: "/3/next?api_key=s3cret"), to: sent, hops: 1,
          credentialNames: ["api_key"])
      }
      guard case .transport(let urlError) = error else {
        Issue.record("\(status): expected a transport error, got \(String(describing: error))")
        continue
      }
      #expect(urlError.code == .requestBodyStreamExhausted)
      #expect(urlError.localizedDescription.contains("\(status) redirect"))
      #expect(!urlError.localizedDescription.contains("s3cret"))
      let get = try #require(
        try RedirectPolicy.default.request(after: redirect(303, to: "next"), to: sent, hops: 1))
      #expect(get.body == nil)
    }
  }

  @Test("303, and 301 or 302 after a POST, become a GET without a body")
  func becomesGet() throws {
    for (status, method) in [(303, "PUT"), (301, "POST"), (302, "POST")] {
      let next = try #require(
        try RedirectPolicy.default.request(
          after: redirect(status, to: "next"), to: request(method), hops: 1))
      #expect(next.head.httpMethod == "GET")
      #expect(next.body == nil)
      #expect(next.head.value(forHTTPHeaderField: "Content-Type") == nil)
    }
    let put = try #require(
      try RedirectPolicy.default.request(
        after: redirect(302, to: "next"), to: request("PUT"), hops: 1))
    #expect(put.head.httpMethod == "PUT")
    #expect(put.body != nil)
  }

  @Test("another origin gets no credential, the client's own names included")
  func credentialsStayHome() throws {
    let next = try #require(
      try RedirectPolicy.default.request(
        after: redirect(302, to: "https://elsewhere.test/x"), to: request("GET", body: nil),
        hops: 1, credentialNames: ["x-key"]))
    #expect(next.head.value(forHTTPHeaderField: "Authorization") == nil)
    #expect(next.head.value(forHTTPHeaderField: "X-Key") == nil)
    let samePortElsewhere = try #require(
      try RedirectPolicy.default.request(
        after: redirect(302, to: "https://api.test:8443/x"), to: request("GET", body: nil),
        hops: 1))
    #expect(samePortElsewhere.head.value(forHTTPHeaderField: "Authorization") == nil)
  }

  @Test("no redirect, no Location, or .never: the response is the answer")
  func notFollowed() throws {
    #expect(
      try RedirectPolicy.default.request(after: redirect(200, to: "x"), to: request("GET"), hops: 1)
        == nil)
    #expect(
      try RedirectPolicy.default.request(after: redirect(302, to: nil), to: request("GET"), hops: 1)
        == nil)
    #expect(
      try RedirectPolicy.never.request(after: redirect(302, to: "x"), to: request("GET"), hops: 1)
        == nil)
  }

  @Test("an empty Location is no Location: the 3xx is the answer, not an 'unsupported URL'")
  func emptyLocation() async throws {
    for location in ["", "  "] {
      #expect(
        try RedirectPolicy.default.request(
          after: redirect(302, to: location), to: request("GET"), hops: 1) == nil)
      let stub = StubTransport().fallback { _ throws(HTTPError) in
        StubResponse(status: 302, headers: ["Location": location], text: "moved")
      }
      let client = HTTPClient(baseURL: origin, transport: stub)
      let error = await #expect(throws: HTTPError.self) {
        try await client.send(Request<String>(path: "x"))
      }
      guard case .unacceptableStatus(let response) = error else {
        Issue.record("\(String(describing: error))")
        continue
      }
      #expect(response.status == 302 && response.body == Data("moved".utf8))
      #expect(stub.requests.count == 1)
    }
  }

  @Test("past the maximum, or to a target that is not http(s), it throws")
  func refused() {
    #expect(throws: HTTPError.self) {
      try RedirectPolicy.follow(maximum: 2).request(
        after: redirect(302, to: "next"), to: request("GET"), hops: 3)
    }
    for target in ["ftp://api.test/file", "file:///etc/passwd", "mailto:a@b.test"] {
      do {
        _ = try RedirectPolicy.default.request(
          after: redirect(302, to: target), to: request("GET"), hops: 1)
        Issue.record("\(target) was followed")
      } catch {
        guard case .transport(let urlError) = error else {
          Issue.record("\(error)")
          continue
        }
        #expect(urlError.code == .unsupportedURL)
      }
    }
  }
}
