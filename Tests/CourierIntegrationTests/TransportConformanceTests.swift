import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The "Writing a transport" article's example: a transport that records what it sends and
/// hands everything else to another.
struct RecordingTransport: HTTPTransport {
  let base: any HTTPTransport
  let log: @Sendable (String) -> Void

  func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
    -> TransportResponse
  {
    log("\(request.method.rawValue) \(request.url?.path ?? "")")
    return try await base.send(request, options: options)
  }
}

/// Every transport Courier ships, and the "Writing a transport" article's, keeps the contract.
@Suite("The transport contract", .timeLimit(.minutes(2)))
struct TransportConformanceTests {
  @Test("URLSessionTransport with its own session", arguments: TransportConformance.checks)
  func ownSession(_ check: TransportConformance.Check) async throws {
    try await check.run(on: URLSessionTransport())
  }

  @Test(
    "URLSessionTransport with a session configuration of your own",
    arguments: TransportConformance.checks)
  func ownConfiguration(_ check: TransportConformance.Check) async throws {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.httpMaximumConnectionsPerHost = 8
    try await check.run(on: URLSessionTransport(configuration: configuration))
  }

  #if canImport(FoundationNetworking)
    @Test("CurlTransport (Linux)", arguments: TransportConformance.checks)
    func curl(_ check: TransportConformance.Check) async throws {
      try await check.run(on: CurlTransport())
    }

    @Test(
      "CurlTransport streams request bodies", arguments: TransportConformance.streamedBodyChecks)
    func curlStreamsBodies(_ check: TransportConformance.Check) async throws {
      try await check.run(on: CurlTransport())
    }

    @Test("CurlTransport opens connections", arguments: TransportConformance.connectionChecks)
    func curlConnects(_ check: TransportConformance.Check) async throws {
      try await check.run(on: CurlTransport())
    }

    @Test(
      "a transport that only connects a POSIX socket opens connections",
      arguments: TransportConformance.connectionChecks)
    func socketConnects(_ check: TransportConformance.Check) async throws {
      try await check.run(on: SocketChannelTransport())
    }
  #else
    @Test(
      "URLSessionTransport streams request bodies (Apple platforms)",
      arguments: TransportConformance.streamedBodyChecks)
    func sessionStreamsBodies(_ check: TransportConformance.Check) async throws {
      try await check.run(on: URLSessionTransport())
    }
  #endif

  @Test("StubTransport, its servers answered in memory", arguments: TransportConformance.checks)
  func stub(_ check: TransportConformance.Check) async throws {
    try await check.run(inMemoryOn: StubTransport())
  }

  @Test(
    "a transport that does not connect fails every connection check",
    arguments: TransportConformance.connectionChecks)
  func declines(_ check: TransportConformance.Check) async throws {
    await #expect(throws: (any Error).self) {
      try await check.run(on: RecordingTransport(base: URLSessionTransport()) { _ in })
    }
  }

  @Test(
    "the Writing a transport article's RecordingTransport", arguments: TransportConformance.checks)
  func recording(_ check: TransportConformance.Check) async throws {
    try await check.run(on: RecordingTransport(base: URLSessionTransport()) { _ in })
  }
}
