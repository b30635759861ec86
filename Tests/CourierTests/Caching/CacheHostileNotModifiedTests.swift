import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A `304` updates the stored response's fields (RFC 9111 §4.3.4), `Vary` among them: the
/// stored response is then selected by what the new `Vary` names (§4.1).
@Suite("HTTPCache: a hostile 304 (Vary changed, no-store, unasked)")
struct CacheHostileNotModifiedTests {
  /// A client with a cache, over a stub that answers a conditional request with a `304`
  /// carrying `vary`, and any other with a `200` that must be revalidated at once.
  func client(vary: String, control: String = "max-age=600") -> (HTTPClient, StubTransport) {
    let stub = StubTransport().fallback { request throws(HTTPError) in
      if request.value(forHTTPHeaderField: "If-None-Match") != nil {
        return StubResponse(
          status: 304, headers: ["ETag": "\"v1\"", "Vary": vary, "Cache-Control": control])
      }
      return StubResponse(
        headers: ["ETag": "\"v1\"", "Vary": "Accept-Language", "Cache-Control": "max-age=0"],
        text: "hello")
    }
    let cache = HTTPCache(memoryCapacity: 1 << 20)
    let client = HTTPClient(
      baseURL: URL(string: "https://api.test")!, configuration: .init(cache: cache),
      transport: stub)
    return (client, stub)
  }

  let english = Request<String>(path: "a", headers: ["Accept-Language": "en"])
  let french = Request<String>(path: "a", headers: ["Accept-Language": "fr"])

  @Test("after a 304 with Vary: *, the stored response never answers unasked")
  func varyStar() async throws {
    let (client, stub) = client(vary: "*")
    _ = try await client.send(english)
    let revalidated = try await client.response(for: english).response
    #expect(revalidated.cacheStatus == .revalidated)
    let next = try await client.response(for: english).response
    #expect(next.cacheStatus != .hit)
    #expect(stub.requests.count == 3)
  }

  @Test("after a 304 with another Vary, the stored response is selected by the new one")
  func otherVary() async throws {
    let (client, stub) = client(vary: "X-Variant")
    _ = try await client.send(english)
    _ = try await client.send(english)
    // The old Vary (Accept-Language) no longer selects: another language gets the stored
    // response, as nothing it now varies on differs.
    let other = try await client.response(for: french).response
    #expect(other.cacheStatus == .hit)
    #expect(stub.requests.count == 2)
  }

  @Test("after a 304 with the same Vary, the refreshed response answers the same request")
  func sameVary() async throws {
    let (client, stub) = client(vary: "Accept-Language")
    _ = try await client.send(english)
    _ = try await client.send(english)
    let hit = try await client.response(for: english).response
    #expect(hit.cacheStatus == .hit)
    let other = try await client.response(for: french).response
    #expect(other.cacheStatus != .hit)
    #expect(stub.requests.count == 3)
  }

  @Test("a 304 with no-store answers, and the stored response is dropped")
  func noStore() async throws {
    let (client, stub) = client(vary: "Accept-Language", control: "no-store")
    _ = try await client.send(english)
    let revalidated = try await client.response(for: english)
    #expect(revalidated.response.cacheStatus == .revalidated)
    #expect(revalidated.value == "hello")
    _ = try await client.send(english)
    #expect(stub.requests.count == 3)
    #expect(stub.requests.last?.value(forHTTPHeaderField: "If-None-Match") == nil)
  }

  @Test("a 304 to a request the cache did not make conditional is an unacceptable status")
  func unaskedNotModified() async throws {
    let stub = StubTransport().fallback { _ throws(HTTPError) in
      StubResponse(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=600"])
    }
    let client = HTTPClient(
      baseURL: URL(string: "https://api.test")!,
      configuration: .init(cache: HTTPCache(memoryCapacity: 1 << 20)), transport: stub)
    for _ in 0..<2 {
      let error = await #expect(throws: HTTPError.self) { try await client.send(english) }
      #expect(error?.status == 304)
    }
    #expect(stub.requests.count == 2)  // nothing was stored from it
  }
}
