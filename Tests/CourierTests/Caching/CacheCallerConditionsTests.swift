import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A caller's own conditional or range request, answered by a fresh stored response (RFC 9111
/// §4.3.2), as http-tests/cache-tests' `conditional-*` and `partial-use-*` cases check it.
@Suite("HTTPCache: the caller's conditions and ranges")
struct CacheCallerConditionsTests {
  static let lastModified = "Tue, 01 Sep 2026 10:00:00 GMT"
  static let body = "0123456789abcdefghijklmnopqrstuvwxyz"

  func client(_ stub: StubTransport) -> HTTPClient {
    HTTPClient(
      baseURL: URL(string: "https://api.test")!,
      configuration: .init(acceptableStatusCodes: StatusCodes(200..<400), cache: HTTPCache()),
      transport: stub)
  }

  /// A stub whose `/r` is fresh for a day, with an `ETag` and a `Last-Modified`.
  func stub(maxAge: Int = 86400) -> StubTransport {
    StubTransport().on(
      .get, "/r",
      StubResponse(
        headers: [
          "Cache-Control": "max-age=\(maxAge)", "ETag": #"W/"abcdef""#,
          "Last-Modified": Self.lastModified, "X-Stored": "yes",
        ], text: Self.body))
  }

  func send(_ client: HTTPClient, _ headers: HTTPHeaders) async throws -> HTTPResponse {
    try await client.response(for: Request<Data>(path: "r", headers: headers)).response
  }

  @Test(
    "If-None-Match naming the stored ETag is answered 304 from the cache",
    arguments: [#""abcdef""#, #"W/"abcdef""#, #""x", "abcdef""#, "*"])
  func etag(tags: String) async throws {
    let stub = stub()
    let client = client(stub)
    _ = try await send(client, [:])
    let answer = try await send(client, ["If-None-Match": tags])
    #expect(answer.status == 304)
    #expect(answer.cacheStatus == .hit)
    #expect(answer.body.isEmpty)
    #expect(answer.headers["ETag"] == #"W/"abcdef""#)
    #expect(answer.headers["X-Stored"] == nil)
    #expect(stub.requests.count == 1)
  }

  @Test("If-None-Match naming another tag gets the stored 200, and takes precedence over a date")
  func etagMismatch() async throws {
    let stub = stub()
    let client = client(stub)
    _ = try await send(client, [:])
    let answer = try await send(
      client, ["If-None-Match": #""other""#, "If-Modified-Since": Self.lastModified])
    #expect(answer.status == 200)
    #expect(answer.body == Data(Self.body.utf8))
    #expect(stub.requests.count == 1)
  }

  @Test("If-Modified-Since at or after Last-Modified is 304; before it, the stored 200")
  func modifiedSince() async throws {
    let stub = stub()
    let client = client(stub)
    _ = try await send(client, [:])
    #expect(try await send(client, ["If-Modified-Since": Self.lastModified]).status == 304)
    #expect(
      try await send(client, ["If-Modified-Since": "Wed, 02 Sep 2026 10:00:00 GMT"]).status == 304)
    #expect(
      try await send(client, ["If-Modified-Since": "Mon, 31 Aug 2026 10:00:00 GMT"]).status == 200)
    #expect(stub.requests.count == 1)
  }

  @Test(
    "One byte range is cut from the stored body as a 206 with the stored fields",
    arguments: [
      ("bytes=0-1", "01", "bytes 0-1/36"), ("bytes=30-", "uvwxyz", "bytes 30-35/36"),
      ("bytes=-3", "xyz", "bytes 33-35/36"), ("bytes=34-99", "yz", "bytes 34-35/36"),
    ])
  func range(range: String, part: String, contentRange: String) async throws {
    let stub = stub()
    let client = client(stub)
    _ = try await send(client, [:])
    let answer = try await send(client, ["Range": range])
    #expect(answer.status == 206)
    #expect(String(decoding: answer.body, as: UTF8.self) == part)
    #expect(answer.headers["Content-Range"] == contentRange)
    #expect(answer.headers["X-Stored"] == "yes")
    #expect(stub.requests.count == 1)
  }

  @Test(
    "What a stored response cannot settle goes to the server as it is",
    arguments: [
      ["Range": "bytes=0-1, 4-5"], ["Range": "bytes=40-"], ["Range": "items=0-1"],
      ["If-Range": #""abcdef""#, "Range": "bytes=0-1"], ["If-Match": #""abcdef""#],
      ["If-Unmodified-Since": lastModified],
    ] as [HTTPHeaders])
  func passedOn(headers: HTTPHeaders) async throws {
    let stub = stub()
    let client = client(stub)
    _ = try await send(client, [:])
    _ = try await send(client, headers)
    #expect(stub.requests.count == 2)
    for field in headers {
      #expect(stub.requests.last?.value(forHTTPHeaderField: field.name) == field.value)
    }
  }

  @Test("A stale stored response does not answer; the request goes to the server as it is")
  func stale() async throws {
    let stub = stub(maxAge: 0)
    let client = client(stub)
    _ = try await send(client, [:])
    _ = try await send(client, ["If-None-Match": #""abcdef""#])
    #expect(stub.requests.count == 2)
    #expect(stub.requests.last?.value(forHTTPHeaderField: "If-None-Match") == #""abcdef""#)
  }
}
