import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Which HTTP version a response came over: the observer's `measured` event carries it in
/// `HTTPTimings.networkProtocol` (as ALPN names it), where the transport knows it.
@Suite("The protocol a response came over", .timeLimit(.minutes(1)))
struct NetworkProtocolTests {
  @Test("an HTTP/1.1 exchange says http/1.1 (CurlTransport, Apple); URLSession on Linux knows none")
  func http11() async throws {
    let measured = Locked<[HTTPTimings]>([])
    var configuration = HTTPClient.Configuration()
    configuration.observer = { event in
      if case .measured(_, let timings) = event { measured.withLock { $0.append(timings) } }
    }
    let loopback = try Loopback(configuration: configuration) { _, response in
      try await response.send(text: "ok")
    }
    defer { loopback.stop() }
    _ = try await loopback.client.send(Request<String>(path: "p"))
    let timings = try #require(measured.withLock { $0 }.first)
    #if canImport(FoundationNetworking)
      if loopback.client.transport is CurlTransport {
        #expect(timings.networkProtocol == "http/1.1")
      } else {
        // FoundationNetworking collects no task metrics: Courier's clock, no protocol.
        #expect(timings.source == .courier)
        #expect(timings.networkProtocol == nil)
      }
    #else
      #expect(timings.networkProtocol == "http/1.1")
    #endif
  }
}
