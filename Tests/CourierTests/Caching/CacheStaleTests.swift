import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `stale-if-error` (RFC 5861 §4) and `immutable` (RFC 8246), on a stub, with a clock the
/// test moves.
@Suite("HTTPCache: stale answers for errors, immutable responses")
struct CacheStaleTests {
  static let start = Date(timeIntervalSince1970: 1_800_000_000)

  /// What the stub answers next: the first request is always the stored `200`.
  enum Next: Sendable {
    case status(Int)
    case failure(HTTPError)
  }

  /// A client whose cache's clock reads `now`, over a stub that answers `/a` with `headers`
  /// first and with `next` afterwards; `events` records the cache's verdicts.
  func makeClient(
    headers: HTTPHeaders, next: Next, now: Locked<Date>, events: Locked<[HTTPCache.Status]>
  ) -> (HTTPClient, StubTransport) {
    let served = Locked(0)
    let stub = StubTransport().on(.get, "/a") { _ throws(HTTPError) in
      let count = served.withLock {
        $0 += 1
        return $0
      }
      if count == 1 { return StubResponse(headers: headers, text: "stored") }
      switch next {
      case .status(let status): return StubResponse(status: status, text: "failure")
      case .failure(let error): throw error
      }
    }
    let cache = HTTPCache(
      memory: MemoryCacheStore(capacity: 1 << 20), disk: nil, clock: { now.withLock { $0 } })
    var configuration = HTTPClient.Configuration(cache: cache)
    configuration.observer = { event in
      if case .cache(_, let status) = event { events.withLock { $0.append(status) } }
    }
    return (
      HTTPClient(
        baseURL: URL(string: "https://api.test")!, configuration: configuration, transport: stub),
      stub
    )
  }

  @Test(
    "within stale-if-error, a 5xx or a failed request is answered by the stale response",
    arguments: [
      Next.status(500), .status(502), .status(503), .status(504),
      .failure(.transport(URLError(.cannotConnectToHost))), .failure(.timedOut),
    ])
  func withinWindow(_ next: Next) async throws {
    let now = Locked(Self.start)
    let events = Locked<[HTTPCache.Status]>([])
    let (client, stub) = makeClient(
      headers: ["Cache-Control": "max-age=10, stale-if-error=60"], next: next, now: now,
      events: events)
    _ = try await client.send(Request<String>(path: "a"))
    now.withLock { $0 = Self.start + 30 }  // 20 s stale, within 60
    let answer = try await client.response(for: Request<String>(path: "a"))
    #expect(answer.value == "stored")
    #expect(answer.response.cacheStatus == .stale)
    #expect(events.withLock { $0 }.last == .stale)  // the observer hears it was stale
    #expect(stub.requests.count == 2)  // the server was asked first
  }

  @Test("past the window, or without the directive, the failure is the caller's")
  func pastWindow() async throws {
    let now = Locked(Self.start)
    let events = Locked<[HTTPCache.Status]>([])
    let (client, _) = makeClient(
      headers: ["Cache-Control": "max-age=10, stale-if-error=60"], next: .status(503), now: now,
      events: events)
    _ = try await client.send(Request<String>(path: "a"))
    now.withLock { $0 = Self.start + 80 }  // 70 s stale, past 60
    let late = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(path: "a"))
    }
    #expect(late?.status == 503)

    let (plain, _) = makeClient(
      headers: ["Cache-Control": "max-age=10"], next: .failure(.transport(URLError(.timedOut))),
      now: now, events: events)
    now.withLock { $0 = Self.start }
    _ = try await plain.send(Request<String>(path: "a"))
    now.withLock { $0 = Self.start + 30 }
    await #expect(throws: HTTPError.self) { try await plain.send(Request<String>(path: "a")) }
  }

  @Test("must-revalidate forbids it; a cancelled request is never answered stale")
  func forbidden() async throws {
    let now = Locked(Self.start)
    let events = Locked<[HTTPCache.Status]>([])
    let (strict, _) = makeClient(
      headers: ["Cache-Control": "max-age=10, stale-if-error=60, must-revalidate"],
      next: .status(500), now: now, events: events)
    _ = try await strict.send(Request<String>(path: "a"))
    now.withLock { $0 = Self.start + 30 }
    await #expect(throws: HTTPError.self) { try await strict.send(Request<String>(path: "a")) }

    let (client, _) = makeClient(
      headers: ["Cache-Control": "max-age=10, stale-if-error=60"], next: .failure(.cancelled),
      now: now, events: events)
    now.withLock { $0 = Self.start }
    _ = try await client.send(Request<String>(path: "a"))
    now.withLock { $0 = Self.start + 30 }
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(path: "a"))
    }
    #expect(error == .cancelled)
  }

  @Test("the request's own stale-if-error allows it too")
  func requestDirective() async throws {
    let now = Locked(Self.start)
    let events = Locked<[HTTPCache.Status]>([])
    let (client, _) = makeClient(
      headers: ["Cache-Control": "max-age=10"], next: .status(500), now: now, events: events)
    _ = try await client.send(Request<String>(path: "a"))
    now.withLock { $0 = Self.start + 30 }
    let answer = try await client.response(
      for: Request<String>(path: "a", headers: ["Cache-Control": "stale-if-error=60"]))
    #expect(answer.value == "stored")
    #expect(answer.response.cacheStatus == .stale)
  }

  @Test("an immutable response within its lifetime answers a reload; .revalidate still asks")
  func immutable() async throws {
    let now = Locked(Self.start)
    let events = Locked<[HTTPCache.Status]>([])
    let (client, stub) = makeClient(
      headers: ["Cache-Control": "max-age=600, immutable", "ETag": "\"v1\""], next: .status(500),
      now: now, events: events)
    _ = try await client.send(Request<String>(path: "a"))
    let reload = Request<String>(path: "a", headers: ["Cache-Control": "no-cache"])
    #expect(try await client.response(for: reload).response.cacheStatus == .hit)
    let maxAgeZero = Request<String>(path: "a", headers: ["Cache-Control": "max-age=0"])
    #expect(try await client.response(for: maxAgeZero).response.cacheStatus == .hit)
    #expect(stub.requests.count == 1)
    var forced = Request<String>(path: "a")
    forced.cachePolicy = .revalidate
    _ = try? await client.send(forced)
    #expect(stub.requests.count == 2)
    now.withLock { $0 = Self.start + 700 }  // past its lifetime: no longer immutable's business
    _ = try? await client.send(reload)
    #expect(stub.requests.count == 3)
  }

  @Test("without immutable, a reload's no-cache revalidates a fresh response")
  func notImmutable() async throws {
    let now = Locked(Self.start)
    let events = Locked<[HTTPCache.Status]>([])
    let (client, stub) = makeClient(
      headers: ["Cache-Control": "max-age=600"], next: .status(200), now: now, events: events)
    _ = try await client.send(Request<String>(path: "a"))
    _ = try await client.send(Request<String>(path: "a", headers: ["Cache-Control": "no-cache"]))
    #expect(stub.requests.count == 2)
  }
}
