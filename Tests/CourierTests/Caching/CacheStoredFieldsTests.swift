import CourierTesting
import Foundation
import Testing

@testable import Courier

/// RFC 9111 §3.1: every field is stored but those of one connection (RFC 9110 §7.6.1).
@Suite("HTTPCache: which fields are stored")
struct CacheStoredFieldsTests {
  func client(_ stub: StubTransport) -> HTTPClient {
    let cache = HTTPCache(memoryCapacity: 1 << 20)
    return HTTPClient(
      baseURL: URL(string: "https://api.test")!, configuration: .init(cache: cache),
      transport: stub)
  }

  @Test("the fields Connection names are not replayed on a hit; the others are")
  func namedFields() async throws {
    let stub = StubTransport().on(
      .get, "/a",
      StubResponse(
        headers: [
          "Cache-Control": "max-age=600", "Connection": "X-Hop, close", "X-Hop": "1",
          "Keep-Alive": "timeout=5", "X-Kept": "2",
        ], text: "a"))
    let client = client(stub)
    let first = try await client.response(for: Request<String>(path: "a")).response
    #expect(first.headers["X-Hop"] == "1")  // the answer itself is untouched
    let hit = try await client.response(for: Request<String>(path: "a")).response
    #expect(hit.cacheStatus == .hit)
    #expect(hit.headers["X-Kept"] == "2")
    #expect(hit.headers["X-Hop"] == nil)
    #expect(hit.headers["Connection"] == nil)
    #expect(hit.headers["Keep-Alive"] == nil)
    #expect(stub.requests.count == 1)
  }

  @Test("a Content-Length beside Transfer-Encoding is not stored: a hit replays none")
  func contentLengthUnderTransferEncoding() async throws {
    let stub = StubTransport().on(
      .get, "/a",
      StubResponse(
        headers: [
          "Cache-Control": "max-age=600", "Transfer-Encoding": "chunked",
          "Content-Length": "999",
        ], text: "hello"))
    let client = client(stub)
    _ = try await client.send(Request<String>(path: "a"))
    let hit = try await client.response(for: Request<String>(path: "a"))
    #expect(hit.response.cacheStatus == .hit)
    #expect(hit.value == "hello")
    #expect(hit.response.headers["Content-Length"] == nil)
    #expect(hit.response.headers["Transfer-Encoding"] == nil)
    #expect(stub.requests.count == 1)
  }

  @Test("a Content-Length alone is stored and replayed on a hit")
  func contentLengthAlone() async throws {
    let stub = StubTransport().on(
      .get, "/a",
      StubResponse(
        headers: ["Cache-Control": "max-age=600", "Content-Length": "5"], text: "hello"))
    let client = client(stub)
    _ = try await client.send(Request<String>(path: "a"))
    let hit = try await client.response(for: Request<String>(path: "a")).response
    #expect(hit.cacheStatus == .hit)
    #expect(hit.headers["Content-Length"] == "5")
    #expect(hit.body.count == 5)
  }

  @Test("a 304's Content-Length and Transfer-Encoding do not refresh the stored framing")
  func notModifiedFraming() {
    let entry = CacheEntry(
      metadata: .init(
        primaryKey: "p", variantKey: "v", status: 200, headers: [["Content-Length", "5"]],
        url: nil, requestTime: Date(), responseTime: Date(), varyNames: []),
      body: Data("hello".utf8))
    let refreshed = entry.refreshed(
      by: HTTPResponse(
        status: 304, headers: ["Content-Length": "0", "Transfer-Encoding": "chunked"]),
      requestTime: Date(), responseTime: Date())
    #expect(refreshed.headers["Content-Length"] == "5")
    #expect(refreshed.headers["Transfer-Encoding"] == nil)
  }

  @Test("names are read in any case, from every Connection line")
  func connectionNames() {
    var headers: HTTPHeaders = ["Connection": " x-one ,X-TWO"]
    headers.add("Connection", "x-three")
    let names = CacheEntry.connectionSpecific(headers)
    #expect(names.isSuperset(of: ["x-one", "x-two", "x-three", "connection", "keep-alive"]))
    #expect(!names.contains(""))
  }

  @Test("a 304's Connection-named fields do not refresh the stored ones")
  func notModified() {
    let entry = CacheEntry(
      metadata: .init(
        primaryKey: "p", variantKey: "v", status: 200, headers: [["X-Hop", "stored"]], url: nil,
        requestTime: Date(), responseTime: Date(), varyNames: []),
      body: Data())
    let refreshed = entry.refreshed(
      by: HTTPResponse(
        status: 304, headers: ["Connection": "X-Hop", "X-Hop": "new", "X-Fresh": "yes"]),
      requestTime: Date(), responseTime: Date())
    #expect(refreshed.headers["X-Hop"] == "stored")
    #expect(refreshed.headers["X-Fresh"] == "yes")
  }

  @Test("Set-Cookie is stored and replayed on a hit, as the response carried it")
  func setCookie() async throws {
    let stub = StubTransport().on(
      .get, "/a",
      StubResponse(
        headers: ["Cache-Control": "max-age=600", "Set-Cookie": "session=abc123; Path=/"],
        text: "a"))
    let client = client(stub)
    _ = try await client.send(Request<String>(path: "a"))
    let hit = try await client.response(for: Request<String>(path: "a")).response
    #expect(hit.cacheStatus == .hit)
    #expect(hit.headers["Set-Cookie"] == "session=abc123; Path=/")
    #expect(!hit.description.contains("abc123"))  // a credential: redacted when described
  }

  @Test("a 304's Set-Cookie replaces the stored one")
  func setCookieRefreshed() {
    let entry = CacheEntry(
      metadata: .init(
        primaryKey: "p", variantKey: "v", status: 200, headers: [["Set-Cookie", "a=1"]],
        url: nil, requestTime: Date(), responseTime: Date(), varyNames: []),
      body: Data())
    let refreshed = entry.refreshed(
      by: HTTPResponse(status: 304, headers: ["Set-Cookie": "a=2"]), requestTime: Date(),
      responseTime: Date())
    #expect(refreshed.headers.values(for: "Set-Cookie") == ["a=2"])
  }
}
