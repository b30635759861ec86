import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Downloads that continue, within one call, where a dropped connection left them, over real
/// sockets. (Resume data and range answers: ResumeDataTests.)
@Suite("Resumable downloads", .timeLimit(.minutes(2)))
struct ResumableDownloadTests {
  @Test("a dropped connection continues with Range and If-Range, and a 206 is appended")
  func dropThen206() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(1_000_000)
    let flaky = try FlakyServer(LoopbackResource(body: body, etag: "\"v1\""), dropAfter: 400_000)
    defer { flaky.server.stop() }
    let (file, last) = try await runTransfer(
      flaky.client.download(Request<Data>(path: "big"), to: scratch.file("big")),
      opening: flaky.cut)
    #expect(try Data(contentsOf: file.url) == body)
    #expect(file.response.status == 206)
    let requests = flaky.requests
    #expect(requests.count == 2)
    let start = try #require(rangeStart(requests.last))
    #expect(start > 0 && start <= 400_000)
    #expect(requests.last?.headers["If-Range"] == "\"v1\"")
    #expect(last?.completedBytes == Int64(body.count))
    #expect(last?.resumedBytes == Int64(start))
    #expect(last?.restarts == 0)
    #expect(scratch.contents == ["big"])
  }

  @Test("Last-Modified serves as the validator when there is no ETag at all")
  func lastModifiedValidator() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(300_000)
    let modified = Date(timeIntervalSince1970: 1_700_000_000)
    let flaky = try FlakyServer(
      LoopbackResource(body: body, lastModified: modified), dropAfter: 100_000)
    defer { flaky.server.stop() }
    let (file, _) = try await runTransfer(
      flaky.client.download(Request<Data>(path: "f"), to: scratch.file("f")), opening: flaky.cut)
    #expect(try Data(contentsOf: file.url) == body)
    #expect(flaky.requests.last?.headers["If-Range"] == LoopbackResource.format(modified))
  }

  @Test("a weak ETag is no validator (If-Range needs a strong one): the drop is not continued")
  func weakETag() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let flaky = try FlakyServer(
      LoopbackResource(
        body: patternBytes(300_000), etag: "W/\"weak\"",
        lastModified: Date(timeIntervalSince1970: 1_700_000_000)),
      dropAfter: 100_000)
    defer { flaky.server.stop() }
    await flaky.expectFailure(to: scratch.file("f"))
    #expect(flaky.requests.count == 1)
    #expect(scratch.contents.isEmpty)
  }

  /// Sends a request again, once, after any transport error (as a retrying middleware does:
  /// the same request, `Range` and all).
  struct RetryOnce: Middleware {
    func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
      -> HTTPResponse
    {
      do {
        return try await next(request)
      } catch .transport {
        return try await next(request)
      }
    }
  }

  @Test("a retry of a dropped range request by middleware keeps no byte twice")
  func retriedRangeRequest() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(200_000)
    let seen = Locked(0)
    let resource = LoopbackResource(body: body, etag: "\"v1\"")
    let server = try LoopbackServer { request, response in
      let number = seen.withLock { count in
        count += 1
        return count
      }
      // The first range answer drops after 30,000 bytes; the retry gets all of the rest.
      try await resource.serve(request, with: response, closingAfter: number == 1 ? 30_000 : nil)
    }
    defer { server.stop() }
    let client = HTTPClient(
      baseURL: server.baseURL, configuration: .init(middleware: [RetryOnce()]))
    let partial = scratch.file("partial")
    try body.prefix(50_000).write(to: partial)
    let data = DownloadResumeData(
      partialFile: partial, url: "", validator: "\"v1\"", bytes: 50_000, totalBytes: 200_000)
    let file = try await client.download(
      Request<Data>(path: "f"), to: scratch.file("f"), resumingFrom: data,
      options: TransferOptions(maximumResumeAttempts: 1)
    ).finished()
    #expect(try Data(contentsOf: file.url) == body)
    #expect(seen.withLock { $0 } == 2)
  }

  @Test("a 200 to the range request starts again from zero, and progress says so")
  func dropThen200() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(500_000)
    let flaky = try FlakyServer(
      LoopbackResource(body: body, etag: "\"v1\"", acceptsRanges: false), dropAfter: 200_000)
    defer { flaky.server.stop() }
    let (file, last) = try await runTransfer(
      flaky.client.download(Request<Data>(path: "f"), to: scratch.file("f")), opening: flaky.cut)
    #expect(try Data(contentsOf: file.url) == body)
    #expect(file.response.status == 200)
    #expect(last?.restarts == 1)
    #expect(last?.resumedBytes == 0)
    #expect(flaky.requests.count == 2)
  }

  @Test("a changed resource is sent whole (If-Range fails): the new file, never a splice")
  func changedValidator() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let old = patternBytes(400_000)
    let new = patternBytes(400_000, from: 7)
    let seen = Locked(0)
    let cut = Gate()
    let server = try LoopbackServer { request, response in
      let number = seen.withLock { count in
        count += 1
        return count
      }
      if number == 1 {
        try await LoopbackResource(body: old, etag: "\"v1\"").serve(
          request, with: response, closingAfter: 150_000, beforeClosing: { await cut.wait() })
      } else {
        try await LoopbackResource(body: new, etag: "\"v2\"").serve(request, with: response)
      }
    }
    defer { server.stop() }
    let (file, last) = try await runTransfer(
      HTTPClient(baseURL: server.baseURL).download(Request<Data>(path: "f"), to: scratch.file("f")),
      opening: cut)
    #expect(try Data(contentsOf: file.url) == new)
    #expect(last?.restarts == 1)
    #expect(seen.withLock { $0 } == 2)
  }

  @Test("without a validator, a dropped download fails and is not continued")
  func noValidator() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let flaky = try FlakyServer(LoopbackResource(body: patternBytes(300_000)), dropAfter: 100_000)
    defer { flaky.server.stop() }
    await flaky.expectFailure(to: scratch.file("f"))
    #expect(flaky.requests.count == 1)
    #expect(scratch.contents.isEmpty)
  }

  @Test("maximumResumeAttempts bounds the continuations; 0 never continues")
  func attemptsBounded() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let flaky = try FlakyServer(
      LoopbackResource(body: patternBytes(300_000), etag: "\"v1\""), drops: 10, dropAfter: 50_000)
    defer { flaky.server.stop() }
    await flaky.expectFailure(
      to: scratch.file("f"), options: TransferOptions(maximumResumeAttempts: 2))
    #expect(flaky.requests.count == 3)
    await flaky.expectFailure(
      to: scratch.file("f"), options: TransferOptions(maximumResumeAttempts: 0))
    #expect(flaky.requests.count == 4)
    #expect(scratch.contents.isEmpty)
  }

  @Test("a cancelled download is never continued, and leaves nothing unless asked")
  func cancelledNotContinued() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let started = Signal()
    let server = try LoopbackServer { request, response in
      try await response.writeHead(
        headers: ["ETag": "\"v1\""], contentLength: 1_000_000)
      try await response.write(patternBytes(100_000))
      started.fire()
      await response.clientDisconnected()
    }
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    let task = Task {
      try await client.download(Request<Data>(path: "f"), to: scratch.file("f")).finished()
    }
    await watched { await started.wait() }
    task.cancel()
    await expectCancelled(task)
    #expect(server.requestCount == 1)
    #expect(scratch.contents.isEmpty)
  }

  @Test("a 100 MB download resumed after a drop is byte-for-byte the file served")
  func hundredMegabytes() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(100 * 1024 * 1024)
    let flaky = try FlakyServer(
      LoopbackResource(body: body, etag: "\"big\""), dropAfter: 40 * 1024 * 1024)
    defer { flaky.server.stop() }
    let (file, _) = try await runTransfer(
      flaky.client.download(Request<Data>(path: "big"), to: scratch.file("big")), opening: flaky.cut
    )
    let received = try Data(contentsOf: file.url)
    #expect(received.count == body.count)
    #expect(received == body)
    #expect(flaky.requests.count == 2)
    #expect((rangeStart(flaky.requests.last) ?? 0) > 0)
  }
}
