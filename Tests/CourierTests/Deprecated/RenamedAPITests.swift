import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The 0.1 names that 1.0 renamed still work, as deprecated forwarders, until 1.1: code written
/// against 0.1 compiles (with a warning that names the new spelling) and does what it did.
@Suite("0.1 names forward to their 1.0 spellings")
struct RenamedAPITests {
  /// Swift Testing refuses a deprecated test, and a non-deprecated one that names a deprecated
  /// API warns (CI allows no warning): each test calls its body through this protocol, whose
  /// witnesses live in a deprecated extension, where using deprecated names is silent.
  protocol OldNameExercises {
    func oldPagingSpelling() async throws
    func oldBatchSpelling() async throws
    func oldCurlSpelling() async throws
    func oldReconnectionSpelling() async throws
    func oldRetryClosures() async throws
    func oldTransportTypeNames() async throws
  }

  struct Old: OldNameExercises {}

  @Test("an endpoint with only nextPage(after:metadata:) still pages to its end")
  func oldPagingSpelling() async throws {
    try await (Old() as any OldNameExercises).oldPagingSpelling()
  }

  @Test("send(all:maxConcurrent:) and results(for:maxConcurrent:) send every endpoint")
  func oldBatchSpelling() async throws {
    try await (Old() as any OldNameExercises).oldBatchSpelling()
  }

  @Test("cURL(for:) and cURLDescription() are the curl command")
  func oldCurlSpelling() async throws {
    try await (Old() as any OldNameExercises).oldCurlSpelling()
  }

  @Test("ReconnectionPolicy's maximumAttempts is maximumConsecutiveFailures")
  func oldReconnectionSpelling() async throws {
    try await (Old() as any OldNameExercises).oldReconnectionSpelling()
  }

  @Test("RetryPolicy's 0.1 closures still do the waiting and the jitter")
  func oldRetryClosures() async throws {
    try await (Old() as any OldNameExercises).oldRetryClosures()
  }

  @Test("the transport types' 0.1 names are the same types")
  func oldTransportTypeNames() async throws {
    try await (Old() as any OldNameExercises).oldTransportTypeNames()
  }
}

/// A 0.1 paged endpoint: implements only `nextPage(after:metadata:)`.
@available(*, deprecated, message: "a 0.1 endpoint on purpose")
struct OldPaged: PagedEndpoint {
  typealias Response = [Int]
  var page = 1
  var path: String { "numbers" }
  var query: Query { ["page": page] }
  func nextPage(after numbers: [Int], metadata: HTTPResponse) -> OldPaged? {
    metadata.status == 200 && page < 3 ? OldPaged(page: page + 1) : nil
  }
}

@available(*, deprecated, message: "exercises the deprecated 0.1 names on purpose")
extension RenamedAPITests.Old {
  func oldPagingSpelling() async throws {
    let stub = StubTransport().fallback { _ throws(HTTPError) in .json("[1]") }
    var pages = 0
    for try await _ in makeClient(transport: stub).pages(OldPaged()) { pages += 1 }
    #expect(pages == 3)

    // LinkPagedRequest's own 0.1 spelling, as a 0.1 endpoint wrapping one would call it.
    let link = LinkPagedRequest<[Int]>(path: "repos")
    var response = HTTPResponse(status: 200, url: URL(string: "https://api.test/repos"))
    response.requestURL = response.url
    response.headers["Link"] = #"<https://api.test/repos?page=2>; rel="next""#
    let next = link.nextPage(after: [1], metadata: response)
    #expect(next?.path == "https://api.test/repos?page=2")
    #expect(next?.path == link.nextPage(after: [1], response: response)?.path)
  }

  func oldBatchSpelling() async throws {
    let stub = StubTransport().fallback { _ throws(HTTPError) in .json("[1]") }
    let client = makeClient(transport: stub)
    let all = try await client.send(all: [OldPaged(), OldPaged()], maxConcurrent: 1)
    #expect(all == [[1], [1]])
    let results = await client.results(for: [OldPaged()], maxConcurrent: 1)
    #expect(results.count == 1)
    // Below 1 is refused as before, nothing sent.
    await #expect(throws: HTTPError.self) {
      try await client.send(all: [OldPaged()], maxConcurrent: 0)
    }
    #expect(stub.requests.count == 3)
  }

  func oldCurlSpelling() async throws {
    let client = makeClient(transport: StubTransport())
    let endpoint = Request<Data>(path: "x", headers: ["Authorization": "Bearer secret"])
    let command = try client.curlCommand(for: endpoint)
    #expect(try client.cURL(for: endpoint) == command)
    #expect(!command.contains("secret"))
    var request = URLRequest(url: URL(string: "https://h.example/x")!)
    request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
    let outgoing = OutgoingRequest(urlRequest: request)
    #expect(outgoing.cURLDescription() == outgoing.curlCommand())
  }

  func oldReconnectionSpelling() async throws {
    var policy = ReconnectionPolicy(delay: .zero, maximumAttempts: 4)
    #expect(policy.maximumConsecutiveFailures == 4)
    policy.maximumAttempts = 2
    #expect(policy.maximumConsecutiveFailures == 2)
  }

  func oldRetryClosures() async throws {
    let waits = Locked<[Duration]>([])
    let policy = RetryPolicy(
      maximumAttempts: 3,
      sleep: { delay throws(HTTPError) in waits.withLock { $0.append(delay) } },
      jitter: { $0 / 2 })
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [policy]
    let stub = StubTransport().fallback { _ throws(HTTPError) in .status(503) }
    await #expect(throws: HTTPError.self) {
      try await makeClient(transport: stub, configuration: configuration)
        .send(Request<Data>(path: "x"))
    }
    #expect(waits.withLock { $0 } == [.milliseconds(250), .milliseconds(500)])
    // Any one closure alone takes the 0.1 initializer; none takes 1.0's.
    let jitterOnly = RetryPolicy(baseDelay: .milliseconds(100), jitter: { $0 / 4 })
    #expect(jitterOnly.backoff(beforeRetry: 1) == .milliseconds(25))
    let plain = RetryPolicy(maximumAttempts: 2)
    #expect(plain.jitter == .full)
    // Setting jitter replaces a 0.1 closure; a 0.1 policy measures Retry-After from its now.
    var replaced = RetryPolicy(baseDelay: .milliseconds(100), jitter: { $0 / 4 })
    replaced.jitter = .none
    #expect(replaced.backoff(beforeRetry: 1) == .milliseconds(100))
    let pinned = Date(timeIntervalSince1970: 1_445_412_460)  // Wed, 21 Oct 2015 07:27:40 GMT
    let waitsForDate = Locked<[Duration]>([])
    var dated = HTTPClient.Configuration()
    dated.middleware = [
      RetryPolicy(
        sleep: { delay throws(HTTPError) in waitsForDate.withLock { $0.append(delay) } },
        now: { pinned })
    ]
    let answers = Locked(0)
    let dateStub = StubTransport().fallback { _ throws(HTTPError) in
      let first = answers.withLock { count in
        defer { count += 1 }
        return count == 0
      }
      return first
        ? StubResponse(
          status: 503,
          headers: [
            "Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT", "Date": "Wed, 21 Oct 2015 07:00:00 GMT",
          ])
        : StubResponse(status: 200)
    }
    _ = try await makeClient(transport: dateStub, configuration: dated)
      .send(Request<Data>(path: "x"))
    #expect(waitsForDate.withLock { $0 } == [.seconds(20)])
  }

  func oldTransportTypeNames() async throws {
    let body: BodySource = .data(Data("hi".utf8))
    let same: TransportRequestBody = body
    #expect(same.length == 2)
    let response: ResponseBody = ResponseBody(Data("ok".utf8))
    #expect(try await response.collect() == Data("ok".utf8))
  }
}
