import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// An upload to a server that stops reading it: the idle timeout ends it (TimeoutsAndCancellation:
/// "ends any request — … an upload … — once no byte has moved either way"), and a server that
/// answers before the body has gone (a 413) ends it at once with that answer (Security, "Hostile
/// responses"). Each server holds its connection open without reading until the test is done, so
/// a client that went on waiting shows as a watchdog failure, never as a slow pass.
@Suite("An upload the server stops reading", .timeLimit(.minutes(1)))
struct UploadStallTests {
  /// More than the sockets' buffers on loopback hold between a client and a server that reads
  /// nothing (a few MiB each way), so the upload stalls part-way.
  static let bodySize = 48 * 1024 * 1024

  /// A server that takes each request's head and then reads nothing of its body: it answers
  /// with `status` at once when one is given, else never; it holds the connection until
  /// `release` opens.
  static func server(answering status: Int?, release: Gate) throws -> LoopbackServer {
    try LoopbackServer(streamsRequestBodies: true) { _, response in
      if let status { try await response.send(status: status, text: "too large") }
      await release.wait()
    }
  }

  /// A client of `server` with no deadline and the given idle timeout.
  static func client(_ server: LoopbackServer, idleTimeout: Duration?) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.timeout = nil
    configuration.idleTimeout = idleTimeout
    return HTTPClient(baseURL: server.baseURL, configuration: configuration)
  }

  /// The outcome of `operation` as text, under a watchdog.
  func outcome(_ operation: @escaping @Sendable () async throws -> String) async -> String? {
    await watched(within: .seconds(45)) {
      do {
        return try await operation()
      } catch {
        return "\(error)"
      }
    }
  }

  @Test("a server that stops reading an upload: timedOut after the idle timeout")
  func stalledUpload() async throws {
    let release = Gate()
    let server = try Self.server(answering: nil, release: release)
    defer {
      release.open()
      server.stop()
    }
    let client = Self.client(server, idleTimeout: .milliseconds(300))
    let body = Data(count: Self.bodySize)
    let result = await outcome {
      _ = try await client.send(Request<Data>(method: .put, path: "up", body: .data(body)))
      return "sent"
    }
    #expect(result == "\(HTTPError.timedOut)")
  }

  @Test("the good path beside it: a server that reads the upload answers it")
  func readUpload() async throws {
    let server = try LoopbackServer(streamsRequestBodies: true) { request, response in
      var count = 0
      for try await chunk in request.bodyChunks { count += chunk.count }
      try await response.send(text: "\(count)")
    }
    defer { server.stop() }
    // An idle timeout no loaded machine's pause reaches (10 s did not, once, in the whole
    // suite over URLSession beside another suite's run), and a body it sends in a moment.
    let client = Self.client(server, idleTimeout: .seconds(40))
    let body = Data(count: 4 * 1024 * 1024)
    let result = await outcome {
      try await client.send(Request<String>(method: .put, path: "up", body: .data(body)))
    }
    #expect(result == "\(body.count)")
  }

  @Test("a server that answers 413 before reading the body stops the upload at once")
  func earlyAnswer() async throws {
    let release = Gate()
    let server = try Self.server(answering: 413, release: release)
    defer {
      release.open()
      server.stop()
    }
    // No idle timeout: a client that went on sending would wait for good.
    let client = Self.client(server, idleTimeout: nil)
    let body = Data(count: Self.bodySize)
    let result = await outcome {
      do throws(HTTPError) {
        _ = try await client.send(Request<Data>(method: .put, path: "up", body: .data(body)))
        return "sent"
      } catch .unacceptableStatus(let response) {
        return "\(response.status) \(String(decoding: response.body, as: UTF8.self))"
      }
    }
    #expect(result == "413 too large")
  }

  @Test("a server that answers 413 to a streamed upload that has not ended stops it at once")
  func earlyAnswerToStream() async throws {
    let release = Gate()
    let server = try Self.server(answering: 413, release: release)
    defer {
      release.open()
      server.stop()
    }
    let client = Self.client(server, idleTimeout: nil)
    // URLSessionTransport on Linux gathers a stream into a file before it sends
    // (PlatformNotes): a body that never ends never leaves there.
    guard sendsOverCurl(client) else { return }
    let (chunks, producer) = AsyncStream.makeStream(of: Data.self)
    producer.yield(Data(count: 64 * 1024))  // then nothing more, and no end
    let result = await outcome {
      do throws(HTTPError) {
        _ = try await client.send(Request<Data>(method: .put, path: "up", body: .stream(chunks)))
        return "sent"
      } catch .unacceptableStatus(let response) {
        return "\(response.status) \(String(decoding: response.body, as: UTF8.self))"
      }
    }
    producer.finish()
    #expect(result == "413 too large")
  }
}
