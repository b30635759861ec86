import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The cache over real sockets: whom it answers (credentials), what invalidates it, the
/// per-request policies, events, and the requests it shares with the rest of the client.
@Suite("HTTPCache: requests, credentials and policies", .timeLimit(.minutes(1)))
struct HTTPCacheRequestTests {
  @Test("a response to one Authorization is never served to another, nor to none")
  func credentialsNeverCross() async throws {
    let served = try CachedServer(
      LoopbackResource(body: CachedServer.movieJSON, cacheControl: "private, max-age=60"))
    defer { served.stop() }
    let alice = Request<Movie>(path: "me", headers: ["Authorization": "Bearer alice"])
    let bob = Request<Movie>(path: "me", headers: ["Authorization": "Bearer bob"])
    _ = try await served.client.send(alice)
    #expect(try await served.client.response(for: bob).response.cacheStatus == .miss)
    #expect(
      try await served.client.response(for: Request<Movie>(path: "me")).response.cacheStatus
        == .miss)
    #expect(try await served.client.response(for: alice).response.cacheStatus == .hit)
    #expect(try await served.client.response(for: bob).response.cacheStatus == .hit)
    #expect(served.requests.count == 3)
  }

  @Test("credentials added by middleware, and names the client lists, are part of the key")
  func middlewareCredentials() async throws {
    let cache = HTTPCache()
    let seen = Locked(0)
    let resource = LoopbackResource(body: CachedServer.movieJSON, cacheControl: "max-age=60")
    let server = try LoopbackServer { request, response in
      seen.withLock { $0 += 1 }
      try await resource.serve(request, with: response)
    }
    defer { server.stop() }
    func client(key: String) -> HTTPClient {
      let configuration = HTTPClient.Configuration(
        middleware: [APIKeyAuthentication(key: key, in: .header("X-Api-Key"))],
        redactedNames: ["X-Tenant"], cache: cache)
      return HTTPClient(baseURL: server.baseURL, configuration: configuration)
    }
    let first = client(key: "first-key")
    let second = client(key: "second-key")
    _ = try await first.send(Request<Movie>(path: "me"))
    #expect(
      try await second.response(for: Request<Movie>(path: "me")).response.cacheStatus == .miss)
    #expect(try await first.response(for: Request<Movie>(path: "me")).response.cacheStatus == .hit)
    let tenantA = Request<Movie>(path: "me", headers: ["X-Tenant": "a"])
    let tenantB = Request<Movie>(path: "me", headers: ["X-Tenant": "b"])
    _ = try await first.send(tenantA)
    #expect(try await first.response(for: tenantB).response.cacheStatus == .miss)
    #expect(seen.withLock { $0 } == 4)
  }

  @Test("a successful POST removes what is stored for its URL and its same-origin Location")
  func unsafeMethodInvalidates() async throws {
    let served = try CachedServer(
      LoopbackResource(body: CachedServer.movieJSON, cacheControl: "max-age=60"))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movies"))
    _ = try await served.client.send(Request<Movie>(path: "movies/new"))
    _ = try await served.client.send(Request<Movie>(path: "movies/other"))
    #expect(served.requests.count == 3)
    _ = try await served.client.send(Request<EmptyResponse>(method: .post, path: "movies"))
    #expect(
      try await served.client.response(for: Request<Movie>(path: "movies")).response.cacheStatus
        == .miss)
    #expect(
      try await served.client.response(for: Request<Movie>(path: "movies/new")).response.cacheStatus
        == .miss)
    #expect(
      try await served.client.response(for: Request<Movie>(path: "movies/other")).response
        .cacheStatus == .hit)
  }

  @Test("reload ignores a fresh response, revalidate always asks, onlyCache never sends")
  func policies() async throws {
    let served = try CachedServer(
      LoopbackResource(body: CachedServer.movieJSON, etag: "\"v1\"", cacheControl: "max-age=60"))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    let reload = Request<Movie>(path: "movie/42", cachePolicy: .reload)
    #expect(try await served.client.response(for: reload).response.cacheStatus == .miss)
    #expect(served.requests.last?.headers["If-None-Match"] == nil)
    let revalidate = Request<Movie>(path: "movie/42", cachePolicy: .revalidate)
    #expect(try await served.client.response(for: revalidate).response.cacheStatus == .revalidated)
    #expect(served.requests.last?.headers["If-None-Match"] == "\"v1\"")
    let only = Request<Movie>(path: "movie/42", cachePolicy: .onlyCache)
    #expect(try await served.client.response(for: only).response.cacheStatus == .hit)
    #expect(served.requests.count == 3)
  }

  @Test("onlyCache with nothing stored fails as unavailable and sends nothing")
  func onlyCacheMiss() async throws {
    let served = try CachedServer(
      LoopbackResource(body: CachedServer.movieJSON, cacheControl: "max-age=60"))
    defer { served.stop() }
    let only = Request<Movie>(path: "movie/42", cachePolicy: .onlyCache)
    let error = await #expect(throws: HTTPError.self) { try await served.client.send(only) }
    guard case .transport(let urlError) = error else {
      Issue.record("expected a transport error, got \(String(describing: error))")
      return
    }
    #expect(urlError.code == .resourceUnavailable)
    #expect(served.requests.isEmpty)
  }

  @Test("onlyCache serves a stale response, but not one that must be revalidated")
  func onlyCacheStale() async throws {
    let served = try CachedServer(
      LoopbackResource(body: CachedServer.movieJSON, etag: "\"v1\"", cacheControl: "max-age=0"))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "a"))
    let stale = try await served.client.response(
      for: Request<Movie>(path: "a", cachePolicy: .onlyCache))
    #expect(stale.response.cacheStatus == .stale)
    served.resource.withLock { $0.cacheControl = "max-age=0, must-revalidate" }
    _ = try await served.client.send(Request<Movie>(path: "b"))
    await #expect(throws: HTTPError.self) {
      try await served.client.send(Request<Movie>(path: "b", cachePolicy: .onlyCache))
    }
    #expect(served.requests.count == 2)
  }

  @Test("the observer hears the cache's verdict")
  func events() async throws {
    let statuses = Locked<[HTTPCache.Status]>([])
    var configuration = HTTPClient.Configuration()
    configuration.observer = { event in
      if case .cache(_, let status) = event { statuses.withLock { $0.append(status) } }
    }
    let served = try CachedServer(
      LoopbackResource(body: CachedServer.movieJSON, etag: "\"v1\"", cacheControl: "max-age=60"),
      configuration: configuration)
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    _ = try await served.client.send(Request<Movie>(path: "movie/42", cachePolicy: .revalidate))
    #expect(statuses.withLock { $0 } == [.miss, .hit, .revalidated])
  }

  @Test("concurrent misses for one URL share one request, and batches use the cache")
  func missesCoalesce() async throws {
    let release = Gate()
    let joined = Signal()
    let waiting = Locked(0)
    let seen = Locked(0)
    let configuration = HTTPClient.Configuration(
      observer: { event in
        guard case .waiting(_, for: .identicalRequest) = event else { return }
        if waiting.withLock({ count in
          count += 1
          return count
        }) == 7 {
          joined.fire()
        }
      }, cache: HTTPCache())
    let resource = LoopbackResource(body: CachedServer.movieJSON, cacheControl: "max-age=60")
    let loopback = try Loopback(configuration: configuration) { request, response in
      seen.withLock { $0 += 1 }
      await release.wait()
      try await resource.serve(request, with: response)
    }
    defer { loopback.stop() }
    let client = loopback.client
    let batch = Task {
      try await client.send(all: Array(repeating: Request<Movie>(path: "movie/42"), count: 8))
    }
    await watched { await joined.wait() }
    release.open()
    #expect(try await batch.value == Array(repeating: CachedServer.movie, count: 8))
    _ = try await client.send(all: Array(repeating: Request<Movie>(path: "movie/42"), count: 4))
    #expect(seen.withLock { $0 } == 1)
  }

  /// Pages `?page=1…3` of numbers, for paging through the cache.
  struct Numbers: PagedEndpoint {
    typealias Response = [Int]
    var page = 1
    var path: String { "numbers" }
    var query: Query { ["page": page] }
    func nextPage(after numbers: [Int], response: HTTPResponse) -> Numbers? {
      page < 3 ? Numbers(page: page + 1) : nil
    }
  }

  @Test("paging goes through the cache like any request: a second pass sends nothing")
  func pagingUsesTheCache() async throws {
    let seen = Locked(0)
    let loopback = try Loopback(configuration: .init(cache: HTTPCache())) { request, response in
      seen.withLock { $0 += 1 }
      let page = Int(request.queryValues("page").first ?? "") ?? 0
      let body = Data("[\(page * 10), \(page * 10 + 1)]".utf8)
      try await LoopbackResource(
        body: body, cacheControl: "max-age=60", headers: ["Content-Type": "application/json"]
      ).serve(request, with: response)
    }
    defer { loopback.stop() }
    for _ in 0..<2 {
      var all: [Int] = []
      for try await page in loopback.client.pages(Numbers()) { all += page }
      #expect(all == [10, 11, 20, 21, 30, 31])
    }
    #expect(seen.withLock { $0 } == 3)
  }

  @Test("a successful DELETE removes what is stored under its Content-Location too")
  func contentLocationInvalidated() async throws {
    let seen = Locked(0)
    let resource = LoopbackResource(body: CachedServer.movieJSON, cacheControl: "max-age=60")
    let loopback = try Loopback(configuration: .init(cache: HTTPCache())) { request, response in
      seen.withLock { $0 += 1 }
      if request.method == "DELETE" {
        try await response.send(status: 200, headers: ["Content-Location": "/3/movies/7"])
      } else {
        try await resource.serve(request, with: response)
      }
    }
    defer { loopback.stop() }
    _ = try await loopback.client.send(Request<Movie>(path: "movies/7"))
    _ = try await loopback.client.send(Request<EmptyResponse>(method: .delete, path: "trash/7"))
    let again = try await loopback.client.response(for: Request<Movie>(path: "movies/7"))
    #expect(again.response.cacheStatus == .miss)
    #expect(seen.withLock { $0 } == 3)
  }

  @Test("downloads and streams pass the cache by")
  func downloadsPassBy() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let served = try CachedServer(
      LoopbackResource(body: CachedServer.movieJSON, cacheControl: "max-age=60"))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    _ = try await served.client.download(Request<Data>(path: "movie/42"), to: scratch.file("m"))
      .finished()
    #expect(served.requests.count == 2)
  }
}
