#if canImport(FoundationNetworking)
  import Courier
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import Testing

  @Suite("CurlTransport in a dump", .timeLimit(.minutes(1)))
  struct CurlTransportMirrorTests {
    @Test("a dump of a client shows no request in flight on the transport it shares")
    func noRequestsInFlight() async throws {
      let started = Signal()
      let server = try LoopbackServer { _, response in
        started.fire()
        await response.clientDisconnected()
      }
      defer { server.stop() }
      var configuration = HTTPClient.Configuration()
      configuration.headers = ["Authorization": "Bearer auth-SECRET"]
      var settings = CurlTransport.Configuration()
      settings.maximumConnectionsPerHost = 7
      let transport = CurlTransport(configuration: settings)
      let busy = HTTPClient(
        baseURL: server.baseURL, configuration: configuration, transport: transport)
      let other = HTTPClient(baseURL: server.baseURL, transport: transport)
      let request = Task {
        try await busy.send(Request<Data>(path: "x", query: ["api_key": "apikey-SECRET"]))
      }
      await started.wait()
      var dumped = ("", "")
      dump(other, to: &dumped.0)
      dump(transport, to: &dumped.1)
      request.cancel()
      for text in [dumped.0, dumped.1] {
        let leaks = text.split(separator: "\n").filter { $0.contains("SECRET") }
        #expect(leaks.isEmpty, "\(leaks.prefix(3))")
        // What the transport is set up to do is there.
        #expect(text.contains("maximumConnectionsPerHost: 7"))
      }
      _ = await request.result
    }
  }
#endif
