import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The qualified `no-cache="A, B"` of a response (RFC 9111 §5.2.2.4): the response is reused
/// as if it had no `no-cache`, but never with the fields it names, as http-tests/cache-tests'
/// `headers-omit-headers-listed-in-Cache-Control-no-cache*` cases check it. An unqualified
/// `no-cache` still means revalidate every time.
@Suite("HTTPCache: a qualified no-cache")
struct CacheQualifiedNoCacheTests {
  static let start = Date(timeIntervalSince1970: 1_800_000_000)

  /// A client whose cache's clock reads `now`, over a stub that answers `/a` with `stored`
  /// and, to a request with `If-None-Match`, with `revalidated` (a `304` by default).
  func makeClient(
    stored: HTTPHeaders, revalidated: HTTPHeaders = [:], now: Locked<Date> = Locked(start)
  ) -> (HTTPClient, StubTransport) {
    let stub = StubTransport().on(.get, "/a") { request throws(HTTPError) in
      if request.value(forHTTPHeaderField: "If-None-Match") != nil {
        return StubResponse(status: 304, headers: revalidated)
      }
      return StubResponse(headers: stored, text: "stored")
    }
    let cache = HTTPCache(
      memory: MemoryCacheStore(capacity: 1 << 20), disk: nil, clock: { now.withLock { $0 } })
    return (
      HTTPClient(
        baseURL: URL(string: "https://api.test")!, configuration: .init(cache: cache),
        transport: stub),
      stub
    )
  }

  /// Headers in order, a name given twice kept twice.
  func headers(_ pairs: [(String, String)]) -> HTTPHeaders {
    HTTPHeaders(pairs.map { HTTPHeaders.Field(name: $0.0, value: $0.1) })
  }

  @Test("a fresh response is reused without the one field its no-cache names")
  func oneField() async throws {
    let (client, stub) = makeClient(
      stored: headers([
        ("Cache-Control", "no-cache=\"a\""), ("a", "1"), ("b", "2"),
        ("Cache-Control", "max-age=3600"),
      ]))
    let first = try await client.response(for: Request<String>(path: "a")).response
    #expect(first.headers["a"] == "1")  // the server's own answer is the caller's, whole
    let hit = try await client.response(for: Request<String>(path: "a"))
    #expect(hit.response.cacheStatus == .hit)
    #expect(hit.value == "stored")
    #expect(hit.response.headers["b"] == "2")
    #expect(hit.response.headers["a"] == nil)
    #expect(stub.requests.count == 1)
  }

  @Test(
    "several names, in any case, quoted or a lone token, are all left out",
    arguments: [
      "no-cache=\"A, b\", max-age=3600", "max-age=3600, NO-CACHE=\" a ,B \"",
    ])
  func severalFields(_ cacheControl: String) async throws {
    let (client, stub) = makeClient(
      stored: ["Cache-Control": cacheControl, "a": "1", "B": "2", "c": "3"])
    _ = try await client.send(Request<String>(path: "a"))
    let hit = try await client.response(for: Request<String>(path: "a")).response
    #expect(hit.cacheStatus == .hit)
    #expect(hit.headers["c"] == "3")
    #expect(hit.headers["a"] == nil)
    #expect(hit.headers["b"] == nil)
    #expect(stub.requests.count == 1)
  }

  @Test("the token form names one field")
  func tokenForm() async throws {
    let (client, stub) = makeClient(
      stored: ["Cache-Control": "no-cache=a, max-age=3600", "a": "1", "b": "2"])
    _ = try await client.send(Request<String>(path: "a"))
    let hit = try await client.response(for: Request<String>(path: "a")).response
    #expect(hit.cacheStatus == .hit)
    #expect(hit.headers["a"] == nil)
    #expect(hit.headers["b"] == "2")
    #expect(stub.requests.count == 1)
  }

  @Test("an unqualified no-cache, or an empty list, still revalidates every time")
  func unqualified() async throws {
    for cacheControl in ["no-cache, max-age=3600", "no-cache=\"\", max-age=3600"] {
      let (client, stub) = makeClient(
        stored: ["Cache-Control": cacheControl, "ETag": "\"v1\"", "a": "1"])
      _ = try await client.send(Request<String>(path: "a"))
      let again = try await client.response(for: Request<String>(path: "a")).response
      #expect(again.cacheStatus == .revalidated)
      #expect(again.headers["a"] == "1")
      #expect(stub.requests.count == 2)
    }
  }

  @Test("a stale entry's 304 brings the named fields' new values to the caller, not to the store")
  func revalidated() async throws {
    let now = Locked(Self.start)
    let (client, stub) = makeClient(
      stored: ["Cache-Control": "no-cache=\"a\", max-age=10", "ETag": "\"v1\"", "a": "1"],
      revalidated: ["ETag": "\"v1\"", "a": "2"], now: now)
    _ = try await client.send(Request<String>(path: "a"))
    now.withLock { $0 = Self.start + 20 }
    let revalidated = try await client.response(for: Request<String>(path: "a")).response
    #expect(revalidated.cacheStatus == .revalidated)
    #expect(revalidated.headers["a"] == "2")
    let hit = try await client.response(for: Request<String>(path: "a")).response
    #expect(hit.cacheStatus == .hit)
    #expect(hit.headers["a"] == nil)
    #expect(stub.requests.count == 2)
  }

  @Test("offline (onlyCache), the entry answers, without the named fields")
  func offline() async throws {
    let (client, _) = makeClient(
      stored: ["Cache-Control": "no-cache=\"a\", max-age=10", "a": "1", "b": "2"])
    _ = try await client.send(Request<String>(path: "a"))
    let offline = try await client.response(
      for: Request<String>(path: "a", cachePolicy: .onlyCache)
    ).response
    #expect(offline.headers["a"] == nil)
    #expect(offline.headers["b"] == "2")
  }

  @Test("an entry read back (from disk, as stored before) is without the named fields")
  func readBack() {
    let entry = CacheEntry(
      metadata: .init(
        primaryKey: "p", variantKey: "v", status: 200,
        headers: [
          ["Cache-Control", "no-cache=\"Set-Cookie\", max-age=60"], ["Set-Cookie", "s=1"],
        ],
        url: nil, requestTime: Self.start, responseTime: Self.start, varyNames: []),
      body: Data())
    #expect(entry.headers["Set-Cookie"] == nil)
    #expect(entry.metadata.headers == [["Cache-Control", "no-cache=\"Set-Cookie\", max-age=60"]])
    #expect(entry.isFresh(at: Self.start, request: CacheControl(HTTPHeaders())))
  }

  @Test("a private cache stores and replays the fields a qualified private names")
  func qualifiedPrivate() async throws {
    let (client, stub) = makeClient(
      stored: ["Cache-Control": "private=\"a\", max-age=3600", "a": "1"])
    _ = try await client.send(Request<String>(path: "a"))
    let hit = try await client.response(for: Request<String>(path: "a")).response
    #expect(hit.cacheStatus == .hit)
    #expect(hit.headers["a"] == "1")
    #expect(stub.requests.count == 1)
  }

  @Test("Pragma: no-cache, with no Cache-Control, is an unqualified no-cache")
  func pragma() async throws {
    let now = Locked(Self.start)
    let (client, stub) = makeClient(
      stored: [
        "Pragma": "no-cache", "ETag": "\"v1\"",
        "Last-Modified": HTTPDate.format(Self.start - 86_400),
      ], now: now)
    _ = try await client.send(Request<String>(path: "a"))
    let again = try await client.response(for: Request<String>(path: "a")).response
    #expect(again.cacheStatus == .revalidated)
    #expect(stub.requests.count == 2)
  }
}
