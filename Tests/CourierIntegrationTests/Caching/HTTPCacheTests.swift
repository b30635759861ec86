import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The cache over real sockets: what it stores, when it answers, how it revalidates.
@Suite("HTTPCache: storing and revalidating", .timeLimit(.minutes(1)))
struct HTTPCacheTests {
  @Test("a fresh response answers again with no request reaching the server")
  func freshHit() async throws {
    let served = try CachedServer(
      LoopbackResource(body: CachedServer.movieJSON, cacheControl: "max-age=60"))
    defer { served.stop() }
    let first = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    let second = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    #expect(first.value == CachedServer.movie && second.value == CachedServer.movie)
    #expect(first.response.cacheStatus == .miss)
    #expect(second.response.cacheStatus == .hit)
    #expect(second.response.cacheStatus.isFromCache)
    #expect(second.response.headers["Age"] != nil)
    #expect(served.requests.count == 1)
  }

  @Test("a stale response is revalidated with its ETag, and a 304 answers with the stored body")
  func staleRevalidated() async throws {
    let served = try CachedServer(
      LoopbackResource(body: CachedServer.movieJSON, etag: "\"v1\"", cacheControl: "max-age=0"))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    let again = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    #expect(again.value == CachedServer.movie)
    #expect(again.response.status == 200)
    #expect(again.response.cacheStatus == .revalidated)
    let requests = served.requests
    #expect(requests.count == 2)
    #expect(requests.first?.headers["If-None-Match"] == nil)
    #expect(requests.last?.headers["If-None-Match"] == "\"v1\"")
  }

  @Test("a response with only Last-Modified is revalidated with If-Modified-Since")
  func lastModifiedRevalidated() async throws {
    let modified = Date(timeIntervalSince1970: 1_700_000_000)
    let served = try CachedServer(
      LoopbackResource(
        body: CachedServer.movieJSON, lastModified: modified, cacheControl: "no-cache"))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    let again = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    #expect(again.response.cacheStatus == .revalidated)
    #expect(served.requests.last?.headers["If-Modified-Since"] == LoopbackResource.format(modified))
  }

  @Test("a changed resource answers a revalidation with 200, which replaces the stored one")
  func changedOnRevalidation() async throws {
    let served = try CachedServer(
      LoopbackResource(body: CachedServer.movieJSON, etag: "\"v1\"", cacheControl: "max-age=0"))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    let changed = Movie(id: 42, title: "Heat (1995)")
    served.resource.withLock {
      $0.body = try! JSONEncoder().encode(changed)
      $0.etag = "\"v2\""
    }
    let again = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    #expect(again.value == changed)
    #expect(again.response.cacheStatus == .miss)
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    #expect(served.requests.last?.headers["If-None-Match"] == "\"v2\"")
  }

  @Test("a 304 refreshes the stored headers: a new max-age makes the next request a hit")
  func notModifiedRefreshesHeaders() async throws {
    let served = try CachedServer(
      LoopbackResource(body: CachedServer.movieJSON, etag: "\"v1\"", cacheControl: "max-age=0"))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    served.resource.withLock { $0.cacheControl = "max-age=600" }
    let revalidated = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    #expect(revalidated.response.headers["Cache-Control"] == "max-age=600")
    let hit = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    #expect(hit.response.cacheStatus == .hit)
    #expect(served.requests.count == 2)
  }

  @Test("no-store is never stored")
  func noStore() async throws {
    let served = try CachedServer(
      LoopbackResource(body: CachedServer.movieJSON, cacheControl: "no-store, max-age=60"))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    let again = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    #expect(again.response.cacheStatus == .miss)
    #expect(served.requests.count == 2)
  }

  @Test("a qualified no-cache, on its own Cache-Control line, is a hit without the fields it names")
  func qualifiedNoCache() async throws {
    var headers: HTTPHeaders = ["X-Session": "s1", "X-Kept": "k"]
    headers.add("Cache-Control", "no-cache=\"X-Session\"")
    headers.add("Cache-Control", "max-age=60")
    let served = try CachedServer(LoopbackResource(body: CachedServer.movieJSON, headers: headers))
    defer { served.stop() }
    let first = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    #expect(first.response.headers["X-Session"] == "s1")
    let again = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    #expect(again.value == CachedServer.movie)
    #expect(again.response.cacheStatus == .hit)
    #expect(again.response.headers["X-Session"] == nil)
    #expect(again.response.headers["X-Kept"] == "k")
    #expect(served.requests.count == 1)
  }

  @Test("a request that says no-store is neither stored; one that says no-cache revalidates")
  func requestDirectives() async throws {
    let served = try CachedServer(
      LoopbackResource(body: CachedServer.movieJSON, etag: "\"v1\"", cacheControl: "max-age=60"))
    defer { served.stop() }
    let noStore = Request<Movie>(path: "movie/42", headers: ["Cache-Control": "no-store"])
    _ = try await served.client.send(noStore)
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    #expect(served.requests.count == 2)
    let noCache = Request<Movie>(path: "movie/42", headers: ["Cache-Control": "no-cache"])
    let revalidated = try await served.client.response(for: noCache)
    #expect(revalidated.response.cacheStatus == .revalidated)
    #expect(served.requests.count == 3)
  }

  @Test("the headers Vary names must match: another value is a miss, the same a hit")
  func varyMismatch() async throws {
    let served = try CachedServer(
      LoopbackResource(
        body: CachedServer.movieJSON, cacheControl: "max-age=60",
        headers: ["Vary": "Accept-Language"]))
    defer { served.stop() }
    let english = Request<Movie>(path: "movie/42", headers: ["Accept-Language": "en"])
    let french = Request<Movie>(path: "movie/42", headers: ["Accept-Language": "fr"])
    _ = try await served.client.send(english)
    #expect(try await served.client.response(for: french).response.cacheStatus == .miss)
    #expect(try await served.client.response(for: english).response.cacheStatus == .hit)
    #expect(try await served.client.response(for: french).response.cacheStatus == .hit)
    #expect(served.requests.count == 2)
  }

  @Test("Vary: * is never stored")
  func varyStar() async throws {
    let served = try CachedServer(
      LoopbackResource(
        body: CachedServer.movieJSON, cacheControl: "max-age=60", headers: ["Vary": "*"]))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    #expect(served.requests.count == 2)
  }
}
