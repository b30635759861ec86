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
    /// A stream holding the transport's one connection to a server until `release` fires,
    /// and a request behind it with an idle timeout of 3 s, on a client with `perHostLimit`.
    /// Returns the request's outcome; the stream is let go after `holdFor` (or once the
    /// request has ended).
    static func behindAHeldConnection(perHostLimit: Int?, holdFor: Duration?) async throws
      -> String?
    {
      let release = Signal()
      let held = Signal()
      let server = try LoopbackServer { request, response in
        guard request.path == "/hold" else { return try await response.send(text: "ok") }
        try await response.writeHead(contentLength: 2)
        try await response.write(Data("a".utf8))
        held.fire()
        await release.wait()
        try await response.write(Data("b".utf8))
      }
      defer { server.stop() }
      var configuration = HTTPClient.Configuration()
      configuration.idleTimeout = .seconds(3)
      configuration.maximumConcurrentRequestsPerHost = perHostLimit
      let client = HTTPClient(
        baseURL: server.baseURL, configuration: configuration,
        transport: CurlTransport(maximumConnectionsPerHost: 1))
      // The holder has no idle limit of its own: it waits on the server, not on the network.
      let stream = try await client.bytes(
        Request<Data>(path: "hold"), options: TransferOptions(idleTimeout: .seconds(3600)))
      await held.wait()
      let request = Task { () -> String in
        do {
          return try await client.send(Request<String>(path: "next"))
        } catch {
          return "\(error)"
        }
      }
      if let holdFor {
        // Time itself is what the test is about: longer than the request's idle timeout.
        try await Task.sleep(for: holdFor)
        release.fire()
        for try await _ in stream {}
        return await watched { await request.value }
      }
      let outcome = await watched { await request.value }
      release.fire()
      for try await _ in stream {}
      return outcome
    }

    @Test("queued in libcurl behind a busy connection, the idle timeout runs: timedOut")
    func queuedInLibcurl() async throws {
      let outcome = try await Self.behindAHeldConnection(perHostLimit: nil, holdFor: nil)
      #expect(outcome == "\(HTTPError.timedOut)")
    }

    @Test("queued by the client's per-host limit for longer than its idle timeout: answered")
    func queuedByClient() async throws {
      let outcome = try await Self.behindAHeldConnection(perHostLimit: 1, holdFor: .seconds(5))
      #expect(outcome == "ok")
    }
  }
#endif
