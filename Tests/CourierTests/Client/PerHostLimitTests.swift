import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@Suite("The per-host limit holds one origin however its URL is spelled")
struct PerHostLimitTests {
  enum Outcome: Equatable {
    /// The second request waited in the first one's line.
    case waited
    /// The second request reached the transport while the first was held there.
    case sent
  }

  /// Sends `first` and holds it at the transport, then sends `second`, on a client allowing
  /// one request per host: whether the second waited for the first's permit or was sent.
  func second(_ second: String, after first: String) async throws -> Outcome {
    let (held, release, decided) = (Signal(), Gate(), Signal())
    let outcome = Locked<Outcome?>(nil)
    let arrivals = Locked(0)
    var configuration = HTTPClient.Configuration()
    configuration.maximumConcurrentRequestsPerHost = 1
    configuration.observer = { event in
      guard case .waiting(_, for: .concurrencyLimit) = event else { return }
      outcome.withLock { $0 = $0 ?? .waited }
      decided.fire()
    }
    let stub = StubTransport().serving { _, response in
      let arrival = arrivals.withLock {
        $0 += 1
        return $0
      }
      if arrival == 1 {
        held.fire()
        await release.wait()
      } else {
        outcome.withLock { $0 = $0 ?? .sent }
        decided.fire()
      }
      try await response.send(text: "ok")
    }
    let client = makeClient(transport: stub, configuration: configuration)
    let firstTask = Task { try await client.send(Request<String>(path: first)) }
    await watched { await held.wait() }
    let secondTask = Task { try await client.send(Request<String>(path: second)) }
    await watched { await decided.wait() }
    release.open()
    #expect(try await firstTask.value == "ok")
    #expect(try await secondTask.value == "ok")
    return try #require(outcome.withLock { $0 })
  }

  @Test(
    "the default port written out, and the scheme's and host's case, are the same host",
    arguments: [
      ("https://h.example/a", "https://h.example:443/b"),
      ("https://h.example:443/a", "https://H.Example/b"),
      ("HTTPS://H.EXAMPLE/a", "https://h.example/b"),
      ("http://h.example/a", "http://h.example:80/b"),
      ("HTTP://H.example:80/a", "http://h.example/b"),
    ])
  func sameHost(first: String, second: String) async throws {
    #expect(try await self.second(second, after: first) == .waited)
  }

  @Test(
    "another port or another scheme is another line",
    arguments: [
      ("https://h.example/a", "https://h.example:8443/b"),
      ("http://h.example/a", "https://h.example/b"),
      ("http://h.example:443/a", "https://h.example/b"),
      ("https://h.example/a", "https://other.example/b"),
    ])
  func otherHost(first: String, second: String) async throws {
    #expect(try await self.second(second, after: first) == .sent)
  }
}
