import CourierTesting
import Foundation
import Testing

@testable import Courier

/// An error answer whose body passes the size limit reaches its caller as
/// `unacceptableStatus` with the start of the body: that response is incomplete, and the
/// cache must not keep it (RFC 9111 §3.3) for a later caller to take as the whole answer.
@Suite("Cache and cut error bodies")
struct CacheCutBodyTests {
  /// A client with a memory cache and a 100,000-byte limit (more than the 64 KiB an error
  /// body is cut to), over a stub whose `/a` answers 404,
  /// fresh for a minute, with `size` bytes.
  func cachingClient(size: Int) -> (HTTPClient, StubTransport) {
    let stub = StubTransport().on(
      .get, "/a",
      StubResponse(
        status: 404, headers: ["Cache-Control": "max-age=60"],
        body: Data(repeating: UInt8(ascii: "e"), count: size)))
    var configuration = HTTPClient.Configuration(maximumResponseBytes: 100_000)
    configuration.cache = HTTPCache(memoryCapacity: 1 << 20)
    return (makeClient(transport: stub, configuration: configuration), stub)
  }

  /// Without the rule, the second request — whose endpoint accepts a 404 — was answered from
  /// the cache with the first 64 KiB of the 200,000-byte body, as if whole.
  @Test("a cut error body is not stored: the next request goes to the server")
  func cutNotStored() async throws {
    let (client, stub) = cachingClient(size: 200_000)
    let first = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "a"))
    }
    #expect(first?.status == 404)
    #expect(first?.response?.body.count == 64 * 1024)
    let second = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "a", acceptableStatusCodes: [200, 404]))
    }
    #expect(second == .responseTooLarge(limit: 100_000))
    #expect(stub.requests.count == 2)
  }

  @Test("the good-path twin: an error body within the limit is stored and answers the next")
  func wholeStored() async throws {
    let (client, stub) = cachingClient(size: 90_000)
    let first = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "a"))
    }
    #expect(first?.response?.body.count == 90_000)
    let second = try await client.response(
      for: Request<Data>(path: "a", acceptableStatusCodes: [200, 404]))
    #expect(second.value.count == 90_000)
    #expect(second.response.cacheStatus == .hit)
    #expect(stub.requests.count == 1)
  }
}
