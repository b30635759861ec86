import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Courier frames a request's body from the body itself; a caller's own framing fields must
/// agree with it, or the request is refused before anything is sent.
@Suite("A caller's Content-Length and Transfer-Encoding")
struct RequestFramingTests {
  let tenBytes = RequestBody.data(Data("0123456789".utf8))

  /// Expects `request` to be refused as an invalid request naming `field`, with nothing sent.
  func expectRefused(
    _ request: Request<Data>, naming field: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    let transport = RefusingTransport()
    let error = await #expect(throws: HTTPError.self, sourceLocation: sourceLocation) {
      try await makeClient(transport: transport).send(request)
    }
    #expect(
      error?.invalidRequestReason?.contains(field) == true, "\(String(describing: error))",
      sourceLocation: sourceLocation)
    #expect(transport.sentCount == 0, sourceLocation: sourceLocation)
  }

  @Test("a Content-Length that is not the body's length is refused; nothing is sent")
  func wrongLength() async {
    for length in ["5", "20", "ten", "-10", "10, 11"] {
      await expectRefused(
        Request(method: .post, path: "x", headers: ["Content-Length": length], body: tenBytes),
        naming: "Content-Length")
    }
    await expectRefused(
      Request(method: .post, path: "x", headers: ["Content-Length": "3"]), naming: "Content-Length")
    let unknown = RequestBody.stream(AsyncStream<Data> { $0.finish() })
    await expectRefused(
      Request(method: .post, path: "x", headers: ["Content-Length": "0"], body: unknown),
      naming: "Content-Length")
  }

  @Test("the body's own length, or 0 with no body, is taken and left to the transport")
  func rightLength() throws {
    let client = makeClient()
    let post = try client.urlRequest(
      for: Request<Data>(
        method: .post, path: "x", headers: ["content-length": "10"], body: tenBytes))
    #expect(post.value(forHTTPHeaderField: "Content-Length") == nil)
    #expect(post.httpBody == Data("0123456789".utf8))
    let empty = try client.urlRequest(
      for: Request<Data>(method: .post, path: "x", headers: ["Content-Length": "0"]))
    #expect(empty.value(forHTTPHeaderField: "Content-Length") == nil)
  }

  @Test("a header value goes out without the spaces and tabs around it; one of only them, empty")
  func trimmedValues() throws {
    var defaults = HTTPClient.Configuration()
    defaults.headers["X-Default"] = "\tv1 "
    let request = try makeClient(configuration: defaults).urlRequest(
      for: Request<Data>(
        path: "x", headers: ["X-Key": "  abc\t", "X-Blank": " \t ", "X-In": "a b"]))
    #expect(request.value(forHTTPHeaderField: "X-Default") == "v1")
    #expect(request.value(forHTTPHeaderField: "X-Key") == "abc")
    #expect(request.value(forHTTPHeaderField: "X-Blank") == "")
    #expect(request.value(forHTTPHeaderField: "X-In") == "a b")
  }

  @Test("a Transfer-Encoding other than chunked is refused; chunked is left to the transport")
  func transferEncoding() async throws {
    for coding in ["gzip, chunked", "gzip", "identity"] {
      await expectRefused(
        Request(method: .post, path: "x", headers: ["Transfer-Encoding": coding], body: tenBytes),
        naming: "Transfer-Encoding")
    }
    let chunked = try makeClient().urlRequest(
      for: Request<Data>(
        method: .post, path: "x", headers: ["Transfer-Encoding": "Chunked"], body: tenBytes))
    #expect(chunked.value(forHTTPHeaderField: "Transfer-Encoding") == nil)
  }

  /// Sets the header fields `fields` on every request, as a middleware.
  struct SettingHeaders: Middleware {
    let fields: [String: String]
    func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
      -> HTTPResponse
    {
      var request = request
      for (name, value) in fields { request.urlRequest.setValue(value, forHTTPHeaderField: name) }
      return try await next(request)
    }
  }

  /// A client whose one middleware sets `fields`, over `transport`.
  func client(setting fields: [String: String], _ transport: any HTTPTransport) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [SettingHeaders(fields: fields)]
    return makeClient(transport: transport, configuration: configuration)
  }

  @Test("a middleware's Content-Length or Transfer-Encoding not framing the body is refused")
  func middlewareFraming() async {
    let refused: [[String: String]] = [
      ["Content-Length": "5"], ["Content-Length": "ten"], ["Transfer-Encoding": "gzip"],
    ]
    for fields in refused {
      let transport = RefusingTransport()
      let error = await #expect(throws: HTTPError.self) {
        try await client(setting: fields, transport).send(
          Request<Data>(method: .post, path: "x", body: tenBytes))
      }
      let name = fields.keys.first!
      #expect(error?.invalidRequestReason?.contains(name) == true, "\(String(describing: error))")
      #expect(transport.sentCount == 0)
    }
  }

  @Test("a middleware's Content-Length of the body's length, or chunked, is taken off and framed")
  func middlewareFramingAgrees() async throws {
    for fields in [["Content-Length": "10"], ["Transfer-Encoding": "chunked"]] {
      let transport = StubTransport().fallback { _ throws(HTTPError) in StubResponse(text: "ok") }
      _ = try await client(setting: fields, transport).send(
        Request<Data>(method: .post, path: "x", body: tenBytes))
      let sent = try #require(transport.requests.first)
      #expect(sent.value(forHTTPHeaderField: "Content-Length") == nil)
      #expect(sent.value(forHTTPHeaderField: "Transfer-Encoding") == nil)
    }
  }
}
