#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import Testing

  @testable import Courier

  /// What `CurlTransport.Configuration.maximumConnectionsPerHost` says of requests beyond it:
  /// they wait in libcurl's queue with their clocks running; the client's per-host limit makes
  /// them wait with none.
  @Suite("Requests beyond CurlTransport's connections per host", .timeLimit(.minutes(1)))
  struct CurlConnectionQueueTests {
    /// 10 requests at once through one connection to a server that takes 300 ms for each,
    /// with an idle timeout of 2 s: the last waits 2.7 s for the connection.
    static func tenAtOnce(perHostLimit: Int?) async throws -> [String] {
      let server = try LoopbackServer { _, response in
        try await Task.sleep(for: .milliseconds(300))  // the server's own pace
        try await response.send(text: "ok")
      }
      defer { server.stop() }
      var configuration = HTTPClient.Configuration()
      configuration.idleTimeout = .seconds(2)
      configuration.maximumConcurrentRequestsPerHost = perHostLimit
      let client = HTTPClient(
        baseURL: server.baseURL, configuration: configuration,
        transport: CurlTransport(maximumConnectionsPerHost: 1))
      let outcomes = await watched {
        await withTaskGroup(of: String.self) { group in
          for index in 0..<10 {
            group.addTask {
              do {
                return try await client.send(Request<String>(path: "r\(index)"))
              } catch {
                return "\(error)"
              }
            }
          }
          return await group.reduce(into: []) { $0.append($1) }
        }
      }
      return outcomes ?? []
    }

    @Test("queued in libcurl, the idle timeout runs: the last requests time out")
    func queuedInLibcurl() async throws {
      let outcomes = try await Self.tenAtOnce(perHostLimit: nil)
      #expect(outcomes.count == 10)
      #expect(outcomes.contains("\(HTTPError.timedOut)"))
    }

    @Test("queued by the client's per-host limit, no clock runs: every request is answered")
    func queuedByClient() async throws {
      let outcomes = try await Self.tenAtOnce(perHostLimit: 1)
      #expect(outcomes == Array(repeating: "ok", count: 10))
    }
  }
#endif
