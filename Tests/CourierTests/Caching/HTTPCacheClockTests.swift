import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The cache's freshness over time, on a stub, with a clock the test moves.
@Suite("HTTPCache with a moving clock")
struct HTTPCacheClockTests {
  static let start = Date(timeIntervalSince1970: 1_800_000_000)

  /// A client over `stub` whose cache's clock reads `now`.
  func client(_ stub: StubTransport, now: Locked<Date>) -> HTTPClient {
    let cache = HTTPCache(
      memory: MemoryCacheStore(capacity: 1 << 20), disk: nil, clock: { now.withLock { $0 } })
    return HTTPClient(
      baseURL: URL(string: "https://api.test")!, configuration: .init(cache: cache),
      transport: stub)
  }

  @Test("the server's Age counts: max-age 100 with Age 90 is stale 15 seconds later")
  func ageCounts() async throws {
    let now = Locked(Self.start)
    let stub = StubTransport().on(
      .get, "/a",
      StubResponse(
        headers: [
          "Cache-Control": "max-age=100", "Age": "90", "Date": HTTPDate.format(Self.start),
        ], text: "a"))
    let client = client(stub, now: now)
    _ = try await client.send(Request<String>(path: "a"))
    now.withLock { $0 = Self.start + 5 }
    #expect(try await client.response(for: Request<String>(path: "a")).response.cacheStatus == .hit)
    now.withLock { $0 = Self.start + 15 }
    #expect(
      try await client.response(for: Request<String>(path: "a")).response.cacheStatus == .miss)
    #expect(stub.requests.count == 2)
  }

  @Test("Expires and heuristic freshness expire as the clock moves")
  func expiry() async throws {
    let now = Locked(Self.start)
    let stub = StubTransport()
      .on(
        .get, "/expires",
        StubResponse(
          headers: [
            "Expires": HTTPDate.format(Self.start + 60), "Date": HTTPDate.format(Self.start),
          ],
          text: "e")
      )
      .on(
        .get, "/heuristic",
        StubResponse(
          headers: [
            "Last-Modified": HTTPDate.format(Self.start - 1000),
            "Date": HTTPDate.format(Self.start),
          ], text: "h"))
    let client = client(stub, now: now)
    _ = try await client.send(Request<String>(path: "expires"))
    _ = try await client.send(Request<String>(path: "heuristic"))
    now.withLock { $0 = Self.start + 50 }
    #expect(
      try await client.response(for: Request<String>(path: "expires")).response.cacheStatus == .hit)
    #expect(
      try await client.response(for: Request<String>(path: "heuristic")).response.cacheStatus
        == .hit)
    now.withLock { $0 = Self.start + 150 }
    #expect(
      try await client.response(for: Request<String>(path: "expires")).response.cacheStatus == .miss
    )
    #expect(
      try await client.response(for: Request<String>(path: "heuristic")).response.cacheStatus
        == .miss)
  }

  @Test("a 304 without Date refreshes from its arrival, not the old Date")
  func notModifiedWithoutDate() async throws {
    let now = Locked(Self.start)
    let calls = Locked(0)
    let stub = StubTransport().on(.get, "/r") { request throws(HTTPError) in
      calls.withLock { $0 += 1 }
      if request.value(forHTTPHeaderField: "If-None-Match") == "\"r1\"" {
        return StubResponse(status: 304, headers: ["Cache-Control": "max-age=100"])
      }
      return StubResponse(
        headers: [
          "Cache-Control": "max-age=100", "ETag": "\"r1\"", "Date": HTTPDate.format(Self.start),
        ], text: "r")
    }
    let client = client(stub, now: now)
    _ = try await client.send(Request<String>(path: "r"))
    now.withLock { $0 = Self.start + 500 }
    let revalidated = try await client.response(for: Request<String>(path: "r"))
    #expect(revalidated.response.cacheStatus == .revalidated)
    #expect(revalidated.value == "r")
    now.withLock { $0 = Self.start + 550 }
    #expect(try await client.response(for: Request<String>(path: "r")).response.cacheStatus == .hit)
    #expect(calls.withLock { $0 } == 2)
  }
}
