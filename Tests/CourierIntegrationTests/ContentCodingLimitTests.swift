#if canImport(FoundationNetworking)
  import Courier
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import Testing

  /// `HTTPResponse.body` is "decoded from gzip or deflate when the server compressed them", and
  /// `maximumResponseBytes` is enforced "as bytes arrive (decoded bytes, after gzip)": through
  /// the client, on every transport (CurlTransportTests holds the transport alone).
  @Suite("A compressed body through the client", .timeLimit(.minutes(1)))
  struct ContentCodingLimitTests {
    static let plain = Data(repeating: 0x61, count: 200_000)

    /// A server answering with `plain` gzipped (a few hundred bytes on the wire).
    static func server() async throws -> LoopbackServer {
      let compressed = try await ChildProcess.shell("gzip -c", input: plain)
      return try LoopbackServer { _, response in
        try await response.send(headers: ["Content-Encoding": "gzip"], body: compressed)
      }
    }

    @Test("a gzip body arrives decoded")
    func decoded() async throws {
      let server = try await Self.server()
      defer { server.stop() }
      let response = try await HTTPClient(baseURL: server.baseURL).response(
        for: Request<Data>(path: "z"))
      #expect(response.value == Self.plain)
    }

    @Test("the size limit counts its decoded bytes, not the few on the wire")
    func limitCountsDecodedBytes() async throws {
      let server = try await Self.server()
      defer { server.stop() }
      var configuration = HTTPClient.Configuration()
      configuration.maximumResponseBytes = 100_000
      let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
      await #expect(throws: HTTPError.responseTooLarge(limit: 100_000)) {
        try await client.send(Request<Data>(path: "z"))
      }
    }
  }
#endif
