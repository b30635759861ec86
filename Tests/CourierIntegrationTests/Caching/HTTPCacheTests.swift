import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The cache over real sockets: what reaches the server, and what the caller gets.
@Suite("HTTPCache over the loopback server", .timeLimit(.minutes(1)))
struct HTTPCacheTests {
  /// A loopback server serving `resource` at every path (a handler may change it), with a
  /// client that caches in `cache`, and the requests the server saw.
  struct Served {
    let loopback: Loopback
    let seen: Locked<[LoopbackRequest]>
    let resource: Locked<LoopbackResource>

    init(
      _ resource: LoopbackResource, cache: HTTPCache = HTTPCache(),
      configuration: HTTPClient.Configuration = HTTPClient.Configuration()
    ) throws {
      let seen = Locked<[LoopbackRequest]>([])
      let current = Locked(resource)
      var configuration = configuration
      configuration.cache = cache
      loopback = try Loopback(configuration: configuration) { request, response in
        seen.withLock { $0.append(request) }
        if request.method == "GET" {
          try await current.withLock { $0 }.serve(request, with: response)
        } else {
          try await response.send(status: 201, headers: ["Location": "/3/movies/new"])
        }
      }
      self.seen = seen
      self.resource = current
    }

    var client: HTTPClient { loopback.client }
    var requests: [LoopbackRequest] { seen.withLock { $0 } }
    func stop() { loopback.stop() }
  }

  static let movie = Movie(id: 42, title: "Heat")
  static var movieJSON: Data { try! JSONEncoder().encode(movie) }

  @Test("a fresh response answers again with no request reaching the server")
  func freshHit() async throws {
    let served = try Served(LoopbackResource(body: Self.movieJSON, cacheControl: "max-age=60"))
    defer { served.stop() }
    let first = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    let second = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    #expect(first.value == Self.movie && second.value == Self.movie)
    #expect(first.response.cacheStatus == .miss)
    #expect(second.response.cacheStatus == .hit)
    #expect(second.response.cacheStatus.isFromCache)
    #expect(second.response.headers["Age"] != nil)
    #expect(served.requests.count == 1)
  }

  @Test("a stale response is revalidated with its ETag, and a 304 answers with the stored body")
  func staleRevalidated() async throws {
    let served = try Served(
      LoopbackResource(body: Self.movieJSON, etag: "\"v1\"", cacheControl: "max-age=0"))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    let again = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    #expect(again.value == Self.movie)
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
    let served = try Served(
      LoopbackResource(body: Self.movieJSON, lastModified: modified, cacheControl: "no-cache"))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    let again = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    #expect(again.response.cacheStatus == .revalidated)
    #expect(served.requests.last?.headers["If-Modified-Since"] == LoopbackResource.format(modified))
  }

  @Test("a changed resource answers a revalidation with 200, which replaces the stored one")
  func changedOnRevalidation() async throws {
    let served = try Served(
      LoopbackResource(body: Self.movieJSON, etag: "\"v1\"", cacheControl: "max-age=0"))
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
    let served = try Served(
      LoopbackResource(body: Self.movieJSON, etag: "\"v1\"", cacheControl: "max-age=0"))
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
    let served = try Served(
      LoopbackResource(body: Self.movieJSON, cacheControl: "no-store, max-age=60"))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    let again = try await served.client.response(for: Request<Movie>(path: "movie/42"))
    #expect(again.response.cacheStatus == .miss)
    #expect(served.requests.count == 2)
  }

  @Test("a request that says no-store is neither stored; one that says no-cache revalidates")
  func requestDirectives() async throws {
    let served = try Served(
      LoopbackResource(body: Self.movieJSON, etag: "\"v1\"", cacheControl: "max-age=60"))
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
    let served = try Served(
      LoopbackResource(
        body: Self.movieJSON, cacheControl: "max-age=60", headers: ["Vary": "Accept-Language"]))
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
    let served = try Served(
      LoopbackResource(body: Self.movieJSON, cacheControl: "max-age=60", headers: ["Vary": "*"]))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    #expect(served.requests.count == 2)
  }

  @Test("a response to one Authorization is never served to another, nor to none")
  func credentialsNeverCross() async throws {
    let served = try Served(
      LoopbackResource(body: Self.movieJSON, cacheControl: "private, max-age=60"))
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
    let resource = LoopbackResource(body: Self.movieJSON, cacheControl: "max-age=60")
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
    let served = try Served(LoopbackResource(body: Self.movieJSON, cacheControl: "max-age=60"))
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
    let served = try Served(
      LoopbackResource(body: Self.movieJSON, etag: "\"v1\"", cacheControl: "max-age=60"))
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
    let served = try Served(LoopbackResource(body: Self.movieJSON, cacheControl: "max-age=60"))
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
    let served = try Served(
      LoopbackResource(body: Self.movieJSON, etag: "\"v1\"", cacheControl: "max-age=0"))
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
    let served = try Served(
      LoopbackResource(body: Self.movieJSON, etag: "\"v1\"", cacheControl: "max-age=60"),
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
    let resource = LoopbackResource(body: Self.movieJSON, cacheControl: "max-age=60")
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
    #expect(try await batch.value == Array(repeating: Self.movie, count: 8))
    _ = try await client.send(all: Array(repeating: Request<Movie>(path: "movie/42"), count: 4))
    #expect(seen.withLock { $0 } == 1)
  }

  /// Pages `?page=1…3` of numbers, for paging through the cache.
  struct Numbers: PagedEndpoint {
    typealias Response = [Int]
    var page = 1
    var path: String { "numbers" }
    var query: Query { ["page": page] }
    func nextPage(after response: [Int], metadata: HTTPResponse) -> Numbers? {
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
    let resource = LoopbackResource(body: Self.movieJSON, cacheControl: "max-age=60")
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
    let served = try Served(LoopbackResource(body: Self.movieJSON, cacheControl: "max-age=60"))
    defer { served.stop() }
    _ = try await served.client.send(Request<Movie>(path: "movie/42"))
    _ = try await served.client.download(Request<Data>(path: "movie/42"), to: scratch.file("m"))
      .finished()
    #expect(served.requests.count == 2)
  }
}
