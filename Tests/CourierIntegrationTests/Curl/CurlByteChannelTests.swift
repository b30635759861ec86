#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// CurlTransport's `connect`, beyond the conformance suite's connection checks (which it
  /// passes: TransportConformanceTests): a read is waiting when close() fails it.
  @Suite("CurlTransport's byte channel", .timeLimit(.minutes(1)))
  struct CurlByteChannelTests {
    @Test("close() fails a waiting read at once, and every later call, with cancelled")
    func closeEndsWaitingCalls() async throws {
      let server = try LoopbackServer { _, response in await response.clientDisconnected() }
      defer { server.stop() }
      let channel = try await CurlTransport().connect(
        to: server.baseURL, options: TransportOptions())
      try await channel.write(Data("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
      let reading = Task { () async -> HTTPError? in
        do throws(HTTPError) {
          _ = try await channel.read()
          return nil
        } catch {
          return error
        }
      }
      let channelState = try #require(channel as? CurlByteChannel).state
      await eventually { channelState.withLock { $0.reader != nil } }
      channel.close()
      #expect(await reading.value == .cancelled)
      await #expect(throws: HTTPError.cancelled) { try await channel.read() }
      await #expect(throws: HTTPError.cancelled) { try await channel.write(Data([1])) }
    }
  }

  /// Returns once `condition` holds (each look after the other tasks have had a turn).
  private func eventually(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
  }
#endif
