#if Metrics
  import Courier
  import CourierTesting
  import Foundation
  import Metrics
  import MetricsTestKit
  import Testing

  @Suite("HTTPClientMetrics over sockets", .timeLimit(.minutes(1)))
  struct MetricsLoopbackTests {
    @Test("a request to the loopback server: its address, port and scheme, sizes and status")
    func loopback() async throws {
      let metrics = TestMetrics()
      let recorder = HTTPClientMetrics(factory: metrics)
      var configuration = HTTPClient.Configuration()
      configuration.observer = { recorder.record($0) }
      let loopback = try Loopback(configuration: configuration) { request, response in
        try await response.send(status: request.body.count == 3 ? 201 : 400, text: "created!")
      }
      defer { loopback.stop() }
      let endpoint = Request<String>(
        method: .put, path: "notes/7", body: .data(Data("abc".utf8), contentType: "text/plain"))
      #expect(try await loopback.client.send(endpoint) == "created!")
      let server = [
        ("http.request.method", "PUT"), ("url.scheme", "http"),
        ("server.address", "127.0.0.1"), ("server.port", "\(loopback.server.port)"),
      ]
      let answered = server + [("http.response.status_code", "201")]
      #expect(try metrics.expectCounter("http.client.requests", answered).values == [1])
      #expect(try metrics.expectRecorder("http.client.request.body.size", answered).values == [3])
      #expect(try metrics.expectRecorder("http.client.response.body.size", answered).values == [8])
      let duration = try metrics.expectTimer("http.client.request.duration", answered)
      #expect(duration.values.count == 1 && duration.values[0] > 0)
      #expect(try metrics.expectMeter("http.client.active_requests", server).values == [1, 0])
    }
  }
#endif
