import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A byte stream through the client's cache: answered by a fresh stored response, sent as it
/// is otherwise, and never stored.
@Suite("The cache and byte streams")
struct CacheStreamTests {
  @Test("a fresh stored response answers a byte stream; a stale one goes to the server, unstored")
  func streamsFromCache() async throws {
    let now = Locked(Date(timeIntervalSince1970: 1_700_000_000))
    let served = Locked(0)
    let stub = StubTransport().on(.get, "/feed") { _ throws(HTTPError) in
      let count = served.withLock {
        $0 += 1
        return $0
      }
      return StubResponse(
        headers: ["Cache-Control": "max-age=60"], body: Data("answer \(count)".utf8))
    }
    let statuses = Locked<[HTTPCache.Status]>([])
    var configuration = HTTPClient.Configuration(
      cache: HTTPCache(
        memory: MemoryCacheStore(capacity: 1 << 20), disk: nil, clock: { now.withLock { $0 } }))
    configuration.observer = { event in
      if case .cache(_, let status) = event { statuses.withLock { $0.append(status) } }
    }
    let client = makeClient(transport: stub, configuration: configuration)
    func streamed() async throws -> String {
      var body = Data()
      for try await chunk in try await client.bytes(Request<Data>(path: "feed")) {
        body.append(chunk)
      }
      return String(decoding: body, as: UTF8.self)
    }
    // Nothing stored: the stream goes to the server, and is not stored.
    #expect(try await streamed() == "answer 1")
    #expect(try await streamed() == "answer 2")
    // A send stores; a stream within its freshness is answered from the cache.
    #expect(try await client.send(Request<String>(path: "feed")) == "answer 3")
    #expect(try await streamed() == "answer 3")
    now.withLock { $0 += 61 }
    #expect(try await streamed() == "answer 4")
    #expect(served.withLock { $0 } == 4)
    #expect(statuses.withLock { $0 } == [.miss, .miss, .miss, .hit, .miss])
  }

  @Test("only-if-cached with nothing stored fails a byte stream, and nothing is sent")
  func onlyIfCached() async throws {
    let stub = StubTransport().on(.get, "/feed", StubResponse(text: "server"))
    let configuration = HTTPClient.Configuration(cache: HTTPCache())
    let client = makeClient(transport: stub, configuration: configuration)
    var request = Request<Data>(path: "feed")
    request.headers["Cache-Control"] = "only-if-cached"
    await #expect(throws: HTTPError.self) { _ = try await client.bytes(request) }
    #expect(stub.requests.isEmpty)
  }
}
