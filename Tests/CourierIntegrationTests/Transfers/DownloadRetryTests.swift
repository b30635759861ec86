import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Middleware around a download (UsingMiddleware): "what comes back is the head once the body
/// has gone to its file, and a retried download starts again from zero".
@Suite("Downloads through retrying middleware", .timeLimit(.minutes(1)))
struct DownloadRetryTests {
  /// What a middleware saw come back from `next`: the body it held and whether the download's
  /// file had its bytes by then.
  struct Seen: Sendable, Equatable {
    var status: Int
    var bodyBytes: Int
  }

  /// Records each response that comes back through it.
  struct Recorder: Middleware {
    let seen: Locked<[Seen]>
    func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
      -> HTTPResponse
    {
      let response = try await next(request)
      seen.withLock { $0.append(Seen(status: response.status, bodyBytes: response.body.count)) }
      return response
    }
  }

  @Test("a download retried after a 503 is the second answer's body alone, from zero")
  func retriedAfterStatus() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(300_000)
    let count = Locked(0)
    let server = try LoopbackServer { _, response in
      // The first answer is a 503 with a body of its own, the next the file.
      if count.withLock({
        $0 += 1
        return $0
      }) == 1 {
        try await response.send(status: 503, text: "busy, come back")
      } else {
        try await response.send(headers: ["ETag": "\"v1\""], body: body)
      }
    }
    defer { server.stop() }
    let seen = Locked<[Seen]>([])
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      RetryPolicy(jitter: .none, clock: RecordingClock()), Recorder(seen: seen),
    ]
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    let file = try await client.download(Request<Data>(path: "f"), to: scratch.file("f"))
      .finished()
    #expect(try Data(contentsOf: file.url) == body)
    #expect(file.response.attempt == 2)
    // The 200's head comes back once its body is in the file: none of it in memory.
    #expect(seen.withLock { $0 }.last == Seen(status: 200, bodyBytes: 0))
    #expect(scratch.contents == ["f"])
  }

  @Test("a download retried after a drop part-way, with no validator to resume, starts from zero")
  func retriedAfterDrop() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(300_000)
    let count = Locked(0)
    let server = try LoopbackServer { _, response in
      if count.withLock({
        $0 += 1
        return $0
      }) == 1 {
        // No ETag or Last-Modified: the first 100,000 bytes cannot be continued.
        try await response.writeHead(contentLength: body.count)
        try await response.write(body.prefix(100_000))
        response.closeConnection()
      } else {
        try await response.send(body: body)
      }
    }
    defer { server.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [RetryPolicy(jitter: .none, clock: RecordingClock())]
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    let file = try await client.download(Request<Data>(path: "f"), to: scratch.file("f"))
      .finished()
    #expect(try Data(contentsOf: file.url) == body)
    #expect(server.requestCount == 2)
    #expect(scratch.contents == ["f"])
  }
}
