import Courier
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How many times Courier's locks are taken for one default `send` — a buffered GET decoding
/// JSON, no middleware, no cache, the default configuration — counted by a ``LockCounter``
/// bound while the client and its transport are made and used, so that only their locks count
/// (not those of tests running alongside, nor of a loopback server made before). Shared by the
/// tests of the budget and `swift run lockcount`.
public enum LockCount {
  /// The page every GET decodes.
  public struct Page: Codable, Sendable, Equatable {
    /// The page's number.
    public var page: Int
    /// What is on it.
    public var results: [Int]
  }

  /// The JSON body of ``Page``.
  public static let pageJSON = #"{"page":1,"results":[1,2,3]}"#

  /// Lock acquisitions per GET of `/page` from `baseURL` over the transport `makeTransport`
  /// makes: `warmUp` GETs first (the connection, the spare handles, the timer's sleeper),
  /// then the average over `count` sequential GETs.
  public static func perGET(
    baseURL: URL, count: Int = 100, warmUp: Int = 5,
    makeTransport: @escaping @Sendable () -> any HTTPTransport
  ) async throws -> Double {
    let counter = LockCounter()
    return try await LockCounter.$current.withValue(counter) {
      let client = HTTPClient(baseURL: baseURL, transport: makeTransport())
      let endpoint = Request<Page>(path: "page")
      for _ in 0..<warmUp { _ = try await client.send(endpoint) }
      let before = counter.acquisitions
      for _ in 0..<count {
        let page = try await client.send(endpoint)
        guard page.page == 1 else { throw HTTPError.invalidRequest(reason: "a wrong page") }
      }
      return Double(counter.acquisitions - before) / Double(count)
    }
  }

  /// A transport that takes no lock: it answers every request at once with ``pageJSON``. A
  /// client over it shows the client's own share of a GET's lock acquisitions.
  public struct Lockless: HTTPTransport {
    /// The transport.
    public init() {}

    /// Answers at once with a 200 and ``LockCount/pageJSON``.
    public func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
      -> TransportResponse
    {
      let head = HTTPResponse(
        status: 200, headers: ["Content-Type": "application/json"], url: request.head.url)
      return TransportResponse(head: head, body: TransportResponseBody(Data(pageJSON.utf8)))
    }
  }

  /// A stub transport answering `/page` with ``pageJSON``.
  public static func stub() -> StubTransport {
    StubTransport().on(.get, "/page", .json(pageJSON))
  }

  /// A loopback server answering every request with ``pageJSON``; stop it when done.
  public static func server() throws -> LoopbackServer {
    try LoopbackServer { _, response in try await response.send(json: pageJSON) }
  }
}
