import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The cache sees a request and the answer its redirects led to, not each hop: it stores
/// only what answered the URL asked for, so that a redirect it never stored is asked again.
@Suite("HTTPCache: responses reached through a redirect", .timeLimit(.minutes(1)))
struct CacheRedirectTests {
  /// A server whose `/latest` redirects (302, no freshness: not stored) to `/v<n>`, `n` being
  /// what `version` holds when it answers; each `/v<n>` is fresh for a minute.
  static func server(_ version: Locked<Int>) throws -> LoopbackServer {
    try LoopbackServer { request, response in
      if request.path == "/latest" {
        let target = "/v\(version.withLock { $0 })"
        try await response.send(status: 302, headers: ["Location": target])
      } else {
        try await response.send(
          headers: ["Cache-Control": "max-age=60"], text: String(request.path.dropFirst()))
      }
    }
  }

  @Test("a 302 that now leads elsewhere is followed again: the last target is not served")
  func redirectChanged() async throws {
    let version = Locked(1)
    let server = try Self.server(version)
    defer { server.stop() }
    let client = HTTPClient(
      baseURL: server.baseURL, configuration: .init(cache: HTTPCache(memoryCapacity: 1 << 20)))
    let first = try await client.response(for: Request<String>(path: "latest"))
    #expect(first.value == "v1")
    version.withLock { $0 = 2 }
    let second = try await client.response(for: Request<String>(path: "latest"))
    #expect(second.value == "v2")
    #expect(second.response.cacheStatus == .miss)
  }

  @Test("the answer to a URL asked for directly is stored and answers again (the good path)")
  func directHit() async throws {
    let server = try Self.server(Locked(1))
    defer { server.stop() }
    let client = HTTPClient(
      baseURL: server.baseURL, configuration: .init(cache: HTTPCache(memoryCapacity: 1 << 20)))
    _ = try await client.response(for: Request<String>(path: "v1"))
    let again = try await client.response(for: Request<String>(path: "v1"))
    #expect(again.value == "v1")
    #expect(again.response.cacheStatus == .hit)
  }

  @Test("a 304 from where a redirect now leads does not confirm the stored response")
  func notModifiedElsewhere() async throws {
    let redirects = Locked(false)
    let server = try LoopbackServer { request, response in
      if request.path == "/a", redirects.withLock({ $0 }) {
        try await response.send(status: 302, headers: ["Location": "/b"])
      } else if request.headers["If-None-Match"] == "\"1\"", request.path == "/b" {
        try await response.send(status: 304, headers: ["ETag": "\"1\""])
      } else {
        // Both resources number their versions from 1: the same tag, another representation.
        try await response.send(
          headers: ["ETag": "\"1\"", "Cache-Control": "max-age=0"],
          text: String(request.path.dropFirst()))
      }
    }
    defer { server.stop() }
    let client = HTTPClient(
      baseURL: server.baseURL, configuration: .init(cache: HTTPCache(memoryCapacity: 1 << 20)))
    #expect(try await client.send(Request<String>(path: "a")) == "a")
    redirects.withLock { $0 = true }
    let again = try await client.response(for: Request<String>(path: "a"))
    #expect(again.value == "b")
    #expect(again.response.cacheStatus == .miss)
  }
}
