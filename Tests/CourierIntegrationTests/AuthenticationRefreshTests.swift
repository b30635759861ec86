import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// A provider whose refresh hands out "fresh-N" and counts how often it ran.
actor RefreshingProvider: CredentialProvider {
  private var current = "stale"
  private(set) var refreshCount = 0
  private let failure: HTTPError?

  init(failing failure: HTTPError? = nil) {
    self.failure = failure
  }

  func token() async throws(HTTPError) -> String { current }

  func refresh() async throws(HTTPError) -> String {
    refreshCount += 1
    if let failure { throw failure }
    current = "fresh-\(refreshCount)"
    return current
  }
}

@Suite("Single-flight token refresh over real sockets", .timeLimit(.minutes(1)))
struct AuthenticationRefreshTests {
  /// Answers 401 until it sees the new token; all 50 requests arrive before any answer.
  func server(arrivals: ArrivalGate) throws -> Loopback {
    try Loopback { request, response in
      if request.headers["Authorization"] == "Bearer fresh-1" {
        try await response.send(text: "ok \(request.path)")
      } else {
        await arrivals.arrive()
        try await response.send(status: 401, text: "expired")
      }
    }
  }

  /// A client with connections enough for 50 requests at once (the default is 32).
  func client(for loopback: Loopback, configuration: HTTPClient.Configuration) -> HTTPClient {
    let session = URLSessionTransport.defaultSessionConfiguration(maximumConnectionsPerHost: 64)
    return HTTPClient(
      baseURL: loopback.server.baseURL.appendingPathComponent("3"), configuration: configuration,
      transport: URLSessionTransport(configuration: session))
  }

  @Test("50 requests refused at once: one refresh, and all 50 succeed with the new token")
  func fiftyRefusedOneRefresh() async throws {
    let provider = RefreshingProvider()
    let loopback = try server(arrivals: ArrivalGate(count: 50))
    defer { loopback.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [BearerAuthentication(provider: provider)]
    let client = client(for: loopback, configuration: configuration)
    let answers = try await client.send(
      all: (0..<50).map { Request<String>(path: "item/\($0)") }, maximumConcurrent: 50)
    #expect(answers == (0..<50).map { "ok /3/item/\($0)" })
    #expect(await provider.refreshCount == 1)
    #expect(loopback.server.requestCount == 100)
  }

  @Test("a failing refresh fails all 50 with its error")
  func failingRefresh() async throws {
    let provider = RefreshingProvider(failing: .transport(URLError(.userAuthenticationRequired)))
    let loopback = try server(arrivals: ArrivalGate(count: 50))
    defer { loopback.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [BearerAuthentication(provider: provider)]
    let client = client(for: loopback, configuration: configuration)
    let outcomes = await client.results(
      for: (0..<50).map { Request<String>(path: "item/\($0)") }, maximumConcurrent: 50)
    #expect(outcomes.count == 50)
    for outcome in outcomes {
      guard case .failure(.transport(let error)) = outcome else {
        Issue.record("expected the refresh's error, got \(outcome)")
        continue
      }
      #expect(error.code == .userAuthenticationRequired)
    }
    #expect(await provider.refreshCount == 1)
    #expect(loopback.server.requestCount == 50)
  }
}
