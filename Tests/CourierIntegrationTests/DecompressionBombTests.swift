#if canImport(FoundationNetworking)
  import Courier
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import Testing

  /// A hostile server's gzip bomb: a small body that decodes to far more than the size limit.
  /// The limit counts decoded bytes, so every kind of request stops at it, on every transport,
  /// with nothing of the excess kept; the good path beside it decodes a body within it.
  @Suite("A gzip bomb stops at the size limit", .timeLimit(.minutes(1)))
  struct DecompressionBombTests {
    /// 32 MiB of zeros, gzipped to about 32 KB.
    static let bomb: Task<Data, any Error> = Task {
      try await ChildProcess.shell("head -c 33554432 /dev/zero | gzip -c")
    }

    /// A server answering every request with `body`, gzip-coded, and `status`.
    func server(_ body: Data, status: Int = 200) throws -> LoopbackServer {
      try LoopbackServer { _, response in
        try await response.send(status: status, headers: ["Content-Encoding": "gzip"], body: body)
      }
    }

    @Test("a send, a stream and a download each end with responseTooLarge at their limit")
    func bombRefused() async throws {
      let bomb = try await Self.bomb.value
      #expect(bomb.count < 200_000)
      let server = try server(bomb)
      defer { server.stop() }
      var configuration = HTTPClient.Configuration()
      configuration.maximumResponseBytes = 1 << 20
      let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)

      let sent = await #expect(throws: HTTPError.self) {
        try await client.send(Request<Data>(path: "bomb"))
      }
      #expect(sent == .responseTooLarge(limit: 1 << 20), "\(String(describing: sent))")

      let limited = TransferOptions(maximumBytes: 1 << 20)
      var read = 0
      let streamed = await #expect(throws: HTTPError.self) {
        for try await chunk in try await client.bytes(Request<Data>(path: "bomb"), options: limited)
        {
          read += chunk.count
        }
      }
      #expect(streamed == .responseTooLarge(limit: 1 << 20), "\(String(describing: streamed))")
      #expect(read <= 1 << 20)

      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let downloaded = await #expect(throws: HTTPError.self) {
        try await client.download(
          Request<Data>(path: "bomb"), to: scratch.file("bomb"), options: limited
        ).finished()
      }
      #expect(downloaded == .responseTooLarge(limit: 1 << 20))
      #expect(scratch.contents.isEmpty)
    }

    @Test("a bomb sent as an error answer keeps its status, with the start of the body")
    func bombAsErrorBody() async throws {
      let server = try server(try await Self.bomb.value, status: 503)
      defer { server.stop() }
      let error = await #expect(throws: HTTPError.self) {
        try await HTTPClient(baseURL: server.baseURL).send(Request<Data>(path: "bomb"))
      }
      guard case .unacceptableStatus(let response) = error else {
        Issue.record("\(String(describing: error))")
        return
      }
      #expect(response.status == 503 && response.body.count <= 64 * 1024)
    }

    @Test("a gzip body that decodes within the limit arrives whole (the good path beside it)")
    func withinLimit() async throws {
      let plain = Data(repeating: 0x61, count: 512 * 1024)
      let server = try server(try await ChildProcess.shell("gzip -c", input: plain))
      defer { server.stop() }
      var configuration = HTTPClient.Configuration()
      configuration.maximumResponseBytes = 1 << 20
      let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
      #expect(try await client.send(Request<Data>(path: "fine")) == plain)
    }
  }
#endif
