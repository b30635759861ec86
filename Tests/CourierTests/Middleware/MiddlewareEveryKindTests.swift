import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// UsingMiddleware: "Every kind of request passes through it: a send, a page, a download, an
/// upload, and each connection of a byte or event stream."
@Suite("Middleware sees every kind of request")
struct MiddlewareEveryKindTests {
  /// Records the method and path of each request that passes through it.
  struct Recorder: Middleware {
    let seen: Locked<[String]>
    func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
      -> HTTPResponse
    {
      seen.withLock { $0.append("\(request.method.rawValue) \(request.url?.path ?? "")") }
      return try await next(request)
    }
  }

  /// Two pages: `/3/list?page=1`, then `page=2`, the last.
  struct Listing: PagedEndpoint {
    typealias Response = [Int]
    var page: Int
    var path: String { "list" }
    var query: Query { ["page": page] }
    func nextPage(after page: [Int], response: HTTPResponse) -> Listing? {
      self.page < 2 ? Listing(page: self.page + 1) : nil
    }
  }

  @Test("a send, each page, a download, an upload, a byte stream and each event connection")
  func everyKind() async throws {
    let connections = Locked(0)
    let stub = StubTransport()
      .on(.get, "/one", StubResponse(text: "1"))
      .on(.get, "/list", .json("[1]"))
      .on(.get, "/file", StubResponse(body: Data("abc".utf8)))
      .on(.put, "/up", .status(204))
      .on(.get, "/bytes", StubResponse(body: Data("xyz".utf8)))
      .on(.get, "/sse") { _ throws(HTTPError) in
        // The first connection gives an event and ends; the reconnection is told to stop.
        let first = connections.withLock { count in
          count += 1
          return count == 1
        }
        return first
          ? StubResponse(
            headers: ["Content-Type": "text/event-stream"], body: Data("data: hi\n\n".utf8))
          : .status(204)
      }
    let seen = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [Recorder(seen: seen)]
    let client = makeClient(transport: stub, configuration: configuration)

    _ = try await client.send(Request<String>(path: "one"))
    for try await _ in client.pages(Listing(page: 1)) {}
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("kinds-\(UUID())")
    defer { try? FileManager.default.removeItem(at: file) }
    _ = try await client.download(Request<Data>(path: "file"), to: file).finished()
    _ = try await client.upload(
      Request<EmptyResponse>(method: .put, path: "up", body: .data(Data("up".utf8)))
    ).finished()
    for try await _ in try await client.bytes(Request<Data>(path: "bytes")) {}
    var events: [String] = []
    for try await event in client.events(
      Request<Data>(path: "sse"), reconnection: ReconnectionPolicy(delay: .zero))
    {
      events.append(event.data)
    }
    #expect(events == ["hi"])
    #expect(
      seen.withLock { $0 } == [
        "GET /3/one", "GET /3/list", "GET /3/list", "GET /3/file", "PUT /3/up", "GET /3/bytes",
        "GET /3/sse", "GET /3/sse",
      ])
  }
}
