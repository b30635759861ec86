import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `stale-while-revalidate` (RFC 5861 §3), on a stub, with a clock the test moves.
@Suite("HTTPCache: stale-while-revalidate")
struct CacheStaleWhileRevalidateTests {
  static let start = Date(timeIntervalSince1970: 1_800_000_000)

  /// A client whose cache reads `now`, over a stub that answers `/a` first with `control`
  /// and the text "first", then with "second" (max-age=10) — each later answer held until
  /// `gate` opens, when there is one.
  func makeClient(control: String, now: Locked<Date>, gate: Gate? = nil)
    -> (HTTPClient, StubTransport, HTTPCache)
  {
    let served = Locked(0)
    let stub = StubTransport().on(.get, "/a") { _ throws(HTTPError) in
      let count = served.withLock {
        $0 += 1
        return $0
      }
      if count == 1 {
        return StubResponse(headers: ["Cache-Control": control, "ETag": "\"1\""], text: "first")
      }
      return StubResponse(
        headers: ["Cache-Control": "max-age=10", "ETag": "\"2\""], text: "second")
    }
    let transport: any HTTPTransport = gate.map { GatedTransport(base: stub, gate: $0) } ?? stub
    let cache = HTTPCache(
      memory: MemoryCacheStore(capacity: 1 << 20), disk: nil, clock: { now.withLock { $0 } })
    let client = HTTPClient(
      baseURL: URL(string: "https://api.test")!, configuration: .init(cache: cache),
      transport: transport)
    return (client, stub, cache)
  }

  /// Holds every request after the first until the gate opens.
  struct GatedTransport: HTTPTransport {
    let base: StubTransport
    let gate: Gate
    func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
      -> TransportResponse
    {
      if !base.requests.isEmpty { await gate.wait() }
      return try await base.send(request, options: options)
    }
  }

  @Test("within the window the stale response answers at once; the server refreshes it behind")
  func withinWindow() async throws {
    let now = Locked(Self.start)
    let (client, stub, cache) = makeClient(
      control: "max-age=10, stale-while-revalidate=60", now: now)
    _ = try await client.send(Request<String>(path: "a"))
    now.withLock { $0 = Self.start + 30 }  // 20 s stale, within 60
    let stale = try await client.response(for: Request<String>(path: "a"))
    #expect(stale.value == "first")
    #expect(stale.response.cacheStatus == .stale)
    await cache.backgroundRevalidationsFinished()
    #expect(stub.requests.count == 2)
    #expect(stub.requests.last?.value(forHTTPHeaderField: "If-None-Match") == "\"1\"")
    let fresh = try await client.response(for: Request<String>(path: "a"))
    #expect(fresh.value == "second")
    #expect(fresh.response.cacheStatus == .hit)
  }

  @Test("while one revalidation is under way, more stale answers start no other")
  func oneAtATime() async throws {
    let now = Locked(Self.start)
    let gate = Gate()
    let (client, stub, cache) = makeClient(
      control: "max-age=10, stale-while-revalidate=60", now: now, gate: gate)
    _ = try await client.send(Request<String>(path: "a"))
    now.withLock { $0 = Self.start + 30 }
    for _ in 0..<3 { #expect(try await client.send(Request<String>(path: "a")) == "first") }
    gate.open()
    await cache.backgroundRevalidationsFinished()
    #expect(stub.requests.count == 2)
  }

  @Test(
    "past the window, under must-revalidate or no-cache, or a request's no-cache: the caller waits",
    arguments: [
      ("max-age=10, stale-while-revalidate=60", 100.0, false),
      ("max-age=10, stale-while-revalidate=60, must-revalidate", 30, false),
      ("max-age=10, stale-while-revalidate=60", 30, true),
      ("max-age=10", 30, false),
    ])
  func caller(_ control: String, _ later: Double, _ requestNoCache: Bool) async throws {
    let now = Locked(Self.start)
    let (client, _, _) = makeClient(control: control, now: now)
    _ = try await client.send(Request<String>(path: "a"))
    now.withLock { $0 = Self.start + later }
    let headers: HTTPHeaders = requestNoCache ? ["Cache-Control": "no-cache"] : [:]
    let answer = try await client.response(for: Request<String>(path: "a", headers: headers))
    #expect(answer.value == "second")
    #expect(answer.response.cacheStatus == .miss)
  }
}
