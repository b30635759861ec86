import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// ``TransferOptions/timeout``: "how long the whole transfer may take, from the call until the
/// last byte" — it ends a transfer that keeps moving, which the idle timeout never does
/// (TimeoutsAndCancellation: "ends overdue requests of every kind — buffered, streamed,
/// downloaded"), on every transport.
@Suite("A transfer's whole-transfer timeout", .timeLimit(.minutes(1)))
struct TransferDeadlineTests {
  /// A server that announces a body it never finishes, a byte every 20 ms, until the client
  /// goes: never idle, never done.
  static func trickling() throws -> LoopbackServer {
    try LoopbackServer { _, response in
      try await response.writeHead(contentLength: 1_000_000)
      while !response.isClientDisconnected {
        try await response.write(Data("x".utf8))
        try await Task.sleep(for: .milliseconds(20))  // the pace the test is about
      }
    }
  }

  /// The outcome of `operation` as text, under a watchdog.
  func outcome(_ operation: @escaping @Sendable () async throws -> Void) async -> String? {
    await watched(within: .seconds(45)) {
      do {
        try await operation()
        return "finished"
      } catch {
        return "\(error)"
      }
    }
  }

  @Test("a download that keeps trickling ends timedOut at its timeout, and leaves no file")
  func download() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let server = try Self.trickling()
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    let options = TransferOptions(timeout: .milliseconds(500), idleTimeout: .seconds(30))
    let result = await outcome {
      _ = try await client.download(
        Request<Data>(path: "f"), to: scratch.file("f"), options: options
      )
      .finished()
    }
    #expect(result == "\(HTTPError.timedOut)")
    #expect(scratch.contents.isEmpty)
  }

  @Test("a byte stream that keeps trickling ends timedOut at its timeout")
  func byteStream() async throws {
    let server = try Self.trickling()
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    let options = TransferOptions(timeout: .milliseconds(500), idleTimeout: .seconds(30))
    let result = await outcome {
      for try await _ in try await client.bytes(Request<Data>(path: "s"), options: options) {}
    }
    #expect(result == "\(HTTPError.timedOut)")
  }

  @Test("the good path beside them: without a timeout, a trickle the idle timeout allows goes on")
  func noTimeout() async throws {
    let server = try LoopbackServer { _, response in
      try await response.writeHead(contentLength: 40)
      for _ in 0..<40 {
        try await response.write(Data("x".utf8))
        try await Task.sleep(for: .milliseconds(20))
      }
    }
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    var count = 0
    for try await chunk in try await client.bytes(Request<Data>(path: "s")) {
      count += chunk.count
    }
    #expect(count == 40)
  }
}
