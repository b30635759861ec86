import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// What ``RetryPolicy`` retries by default, each status and method the docs list
/// (UsingMiddleware, "Retries"): `GET`, `HEAD`, `PUT`, `DELETE` and `OPTIONS` after 408, 429,
/// 500, 502, 503 and 504 — and not the neighbours of either list.
@Suite("RetryPolicy's default statuses and methods")
struct RetryPolicyDefaultsTests {
  /// How many requests `method` to a server answering `status` once, then 200, reaches it.
  func attempts(_ method: HTTPMethod, after status: Int) async -> Int {
    let count = Locked(0)
    let transport = StubTransport().fallback { _ throws(HTTPError) in
      let first = count.withLock { value in
        defer { value += 1 }
        return value == 0
      }
      return StubResponse(status: first ? status : 200)
    }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [RetryPolicy(clock: RecordingClock())]
    let client = makeClient(transport: transport, configuration: configuration)
    _ = try? await client.send(Request<EmptyResponse>(method: method, path: "x"))
    return transport.requests.count
  }

  @Test(
    "408, 429, 500, 502, 503 and 504 are retried; 400, 404, 409, 501 and 505 are not",
    arguments: [408, 429, 500, 502, 503, 504, 400, 404, 409, 501, 505])
  func statuses(status: Int) async {
    let retried = [408, 429, 500, 502, 503, 504].contains(status)
    #expect(await attempts(.get, after: status) == (retried ? 2 : 1))
  }

  @Test(
    "GET, HEAD, PUT, DELETE and OPTIONS are retried; POST and PATCH are not",
    arguments: [
      (HTTPMethod.get, true), (.head, true), (.put, true), (.delete, true), (.options, true),
      (.post, false), (.patch, false),
    ])
  func methods(method: HTTPMethod, retried: Bool) async {
    #expect(await attempts(method, after: 503) == (retried ? 2 : 1))
  }
}
