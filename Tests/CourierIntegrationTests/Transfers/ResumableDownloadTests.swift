import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Downloads that continue where a dropped connection left them, within one call and
/// across clients (resume data), over real sockets.
@Suite("Resumable downloads", .timeLimit(.minutes(2)))
struct ResumableDownloadTests {
  /// A server of `resource` (which a test may change) whose first `drops` answers close the
  /// connection after `dropAfter` body bytes, recording the requests it saw.
  struct Flaky {
    let server: LoopbackServer
    let seen: Locked<[LoopbackRequest]>
    let resource: Locked<LoopbackResource>

    init(_ resource: LoopbackResource, drops: Int = 1, dropAfter: Int) throws {
      let seen = Locked<[LoopbackRequest]>([])
      let cut = Gate()
      let current = Locked(resource)
      server = try LoopbackServer { request, response in
        let number = seen.withLock { requests in
          requests.append(request)
          return requests.count
        }
        let resource = current.withLock { $0 }
        try await resource.serve(
          request, with: response, closingAfter: number <= drops ? dropAfter : nil,
          beforeClosing: { await cut.wait() })
      }
      self.seen = seen
      self.resource = current
      self.cut = cut
    }

    /// Opened by ``run(_:opening:)`` once the client reports bytes, so that the connection
    /// drops mid-transfer, after the client has seen the head and the first bytes.
    let cut: Gate

    var client: HTTPClient { HTTPClient(baseURL: server.baseURL) }
    var requests: [LoopbackRequest] { seen.withLock { $0 } }
  }

  /// The first byte a range request asked for.
  func rangeStart(_ request: LoopbackRequest?) -> Int? {
    guard let value = request?.headers["Range"], value.hasPrefix("bytes=") else { return nil }
    return Int(value.dropFirst(6).prefix { $0 != "-" })
  }

  /// Runs `transfer`, returning its outcome and the last progress it reported; opens `cut`
  /// at the first bytes reported.
  func run(_ transfer: Transfer<DownloadedFile>, opening cut: Gate = Gate()) async throws -> (
    DownloadedFile, TransferProgress?
  ) {
    var last: TransferProgress?
    for try await event in transfer {
      switch event {
      case .progress(let progress):
        last = progress
        if progress.completedBytes > 0 { cut.open() }
      case .completed(let file): return (file, last)
      }
    }
    throw HTTPError.cancelled
  }

  @Test("a dropped connection continues with Range and If-Range, and a 206 is appended")
  func dropThen206() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(1_000_000)
    let flaky = try Flaky(LoopbackResource(body: body, etag: "\"v1\""), dropAfter: 400_000)
    defer { flaky.server.stop() }
    let (file, last) = try await run(
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
    let flaky = try Flaky(
      LoopbackResource(body: body, lastModified: modified), dropAfter: 100_000)
    defer { flaky.server.stop() }
    let (file, _) = try await run(
      flaky.client.download(Request<Data>(path: "f"), to: scratch.file("f")), opening: flaky.cut)
    #expect(try Data(contentsOf: file.url) == body)
    #expect(flaky.requests.last?.headers["If-Range"] == LoopbackResource.format(modified))
  }

  @Test("a weak ETag is no validator (If-Range needs a strong one): the drop is not continued")
  func weakETag() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let flaky = try Flaky(
      LoopbackResource(
        body: patternBytes(300_000), etag: "W/\"weak\"",
        lastModified: Date(timeIntervalSince1970: 1_700_000_000)),
      dropAfter: 100_000)
    defer { flaky.server.stop() }
    await #expect(throws: HTTPError.self) {
      try await run(
        flaky.client.download(Request<Data>(path: "f"), to: scratch.file("f")), opening: flaky.cut)
    }
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
      options: TransferOptions(resumeAttempts: 1)
    ).finished()
    #expect(try Data(contentsOf: file.url) == body)
    #expect(seen.withLock { $0 } == 2)
  }

  @Test("a 200 to the range request starts again from zero, and progress says so")
  func dropThen200() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(500_000)
    let flaky = try Flaky(
      LoopbackResource(body: body, etag: "\"v1\"", acceptsRanges: false), dropAfter: 200_000)
    defer { flaky.server.stop() }
    let (file, last) = try await run(
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
    let (file, last) = try await run(
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
    let flaky = try Flaky(LoopbackResource(body: patternBytes(300_000)), dropAfter: 100_000)
    defer { flaky.server.stop() }
    await #expect(throws: HTTPError.self) {
      try await run(
        flaky.client.download(Request<Data>(path: "f"), to: scratch.file("f")), opening: flaky.cut)
    }
    #expect(flaky.requests.count == 1)
    #expect(scratch.contents.isEmpty)
  }

  @Test("resumeAttempts bounds the continuations; 0 never continues")
  func attemptsBounded() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let flaky = try Flaky(
      LoopbackResource(body: patternBytes(300_000), etag: "\"v1\""), drops: 10, dropAfter: 50_000)
    defer { flaky.server.stop() }
    await #expect(throws: HTTPError.self) {
      try await run(
        flaky.client.download(
          Request<Data>(path: "f"), to: scratch.file("f"),
          options: TransferOptions(resumeAttempts: 2)),
        opening: flaky.cut)
    }
    #expect(flaky.requests.count == 3)
    await #expect(throws: HTTPError.self) {
      try await run(
        flaky.client.download(
          Request<Data>(path: "f"), to: scratch.file("f"),
          options: TransferOptions(resumeAttempts: 0)),
        opening: flaky.cut)
    }
    #expect(flaky.requests.count == 4)
    #expect(scratch.contents.isEmpty)
  }

  @Test("resume data from one client lets another finish the download, from a fresh URL")
  func resumeDataAcrossClients() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(600_000)
    let flaky = try Flaky(
      LoopbackResource(body: body, etag: "\"v1\""), dropAfter: 250_000)
    defer { flaky.server.stop() }
    let kept = Locked<DownloadResumeData?>(nil)
    let options = TransferOptions(
      resumeAttempts: 0, resumeData: { data in kept.withLock { $0 = data } })
    await #expect(throws: HTTPError.self) {
      try await run(
        flaky.client.download(
          Request<Data>(path: "f", query: ["api_key": "secret-key-1"]), to: scratch.file("f"),
          options: options
        ), opening: flaky.cut)
    }
    let data = try #require(kept.withLock { $0 })
    #expect(data.bytes > 0 && data.bytes <= 250_000)
    #expect(data.validator == "\"v1\"")
    #expect(data.totalBytes == 600_000)
    #expect(FileManager.default.fileExists(atPath: data.partialFile.path))
    let encoded = try JSONEncoder().encode(data)
    #expect(!String(decoding: encoded, as: UTF8.self).contains("secret-key-1"))
    let decoded = try JSONDecoder().decode(DownloadResumeData.self, from: encoded)
    // Another client, another path on the server (a fresh URL for the same file).
    let other = HTTPClient(baseURL: flaky.server.baseURL)
    let (file, last) = try await run(
      other.download(Request<Data>(path: "mirror/f"), to: scratch.file("f"), resumingFrom: decoded))
    #expect(try Data(contentsOf: file.url) == body)
    #expect(rangeStart(flaky.requests.last) == Int(data.bytes))
    #expect(flaky.requests.last?.path == "/mirror/f")
    #expect(last?.resumedBytes == data.bytes)
    #expect(scratch.contents == ["f"])
  }

  @Test("a download of the caller's own range is not continued, and gives no resume data")
  func callerRange() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let flaky = try Flaky(
      LoopbackResource(body: patternBytes(300_000), etag: "\"v1\""), dropAfter: 50_000)
    defer { flaky.server.stop() }
    let kept = Locked<DownloadResumeData?>(nil)
    let options = TransferOptions(resumeData: { data in kept.withLock { $0 = data } })
    await #expect(throws: HTTPError.self) {
      try await run(
        flaky.client.download(
          Request<Data>(path: "f", headers: ["Range": "bytes=100000-"]), to: scratch.file("f"),
          options: options),
        opening: flaky.cut)
    }
    #expect(flaky.requests.count == 1)
    #expect(kept.withLock { $0 } == nil)
    #expect(scratch.contents.isEmpty)
  }

  @Test("resume data whose partial file is missing or of another size is refused, sending nothing")
  func badResumeData() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let flaky = try Flaky(LoopbackResource(body: patternBytes(1000), etag: "\"v1\""), dropAfter: 0)
    defer { flaky.server.stop() }
    let partial = scratch.file("partial")
    try patternBytes(100).write(to: partial)
    for data in [
      DownloadResumeData(
        partialFile: scratch.file("gone"), url: "", validator: "\"v1\"", bytes: 100,
        totalBytes: 1000),
      DownloadResumeData(
        partialFile: partial, url: "", validator: "\"v1\"", bytes: 200, totalBytes: 1000),
    ] {
      let error = await #expect(throws: HTTPError.self) {
        try await flaky.client.download(
          Request<Data>(path: "f"), to: scratch.file("f"), resumingFrom: data
        ).finished()
      }
      #expect(error?.invalidRequestReason?.contains("partial file") == true)
    }
    #expect(flaky.requests.isEmpty)
  }

  @Test("a range answer that does not fit — another start, total or ETag — is an error, no splice")
  func misfittingRange() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let answers: [HTTPHeaders] = [
      ["Content-Range": "bytes 50-99/200", "ETag": "\"v1\""],  // another start
      ["Content-Range": "bytes 100-199/300", "ETag": "\"v1\""],  // another total
      ["Content-Range": "bytes 100-199/200", "ETag": "\"v2\""],  // another representation
      ["ETag": "\"v1\""],  // no Content-Range at all
    ]
    for headers in answers {
      let server = try LoopbackServer { _, response in
        try await response.send(status: 206, headers: headers, body: patternBytes(100))
      }
      defer { server.stop() }
      let partial = scratch.file("partial")
      try patternBytes(100).write(to: partial)
      let data = DownloadResumeData(
        partialFile: partial, url: "", validator: "\"v1\"", bytes: 100, totalBytes: 200)
      let error = await #expect(throws: HTTPError.self) {
        try await HTTPClient(baseURL: server.baseURL).download(
          Request<Data>(path: "f"), to: scratch.file("f"), resumingFrom: data
        ).finished()
      }
      guard case .transport(let urlError) = error else {
        Issue.record("expected a transport error for \(headers), got \(String(describing: error))")
        continue
      }
      #expect(urlError.code == .badServerResponse)
      #expect(scratch.contents.isEmpty, "nothing is left for \(headers)")
      #expect(server.requestCount == 1)
    }
  }

  @Test("the final file must have the announced total: a short one is an error")
  func totalChecked() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let server = try LoopbackServer { _, response in
      try await response.send(
        status: 206, headers: ["Content-Range": "bytes 100-199/300", "ETag": "\"v1\""],
        body: patternBytes(100))
    }
    defer { server.stop() }
    let partial = scratch.file("partial")
    try patternBytes(100).write(to: partial)
    let data = DownloadResumeData(
      partialFile: partial, url: "", validator: "\"v1\"", bytes: 100, totalBytes: nil)
    let error = await #expect(throws: HTTPError.self) {
      try await HTTPClient(baseURL: server.baseURL).download(
        Request<Data>(path: "f"), to: scratch.file("f"), resumingFrom: data
      ).finished()
    }
    #expect("\(String(describing: error))".contains("300"))
    #expect(scratch.contents.isEmpty)
  }

  @Test("a 416 completes a download that already has every byte, and restarts one that does not")
  func rangeNotSatisfiable() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(1000)
    let flaky = try Flaky(LoopbackResource(body: body, etag: "\"v1\""), drops: 0, dropAfter: 0)
    defer { flaky.server.stop() }
    let whole = scratch.file("whole")
    try body.write(to: whole)
    let complete = try await flaky.client.download(
      Request<Data>(path: "f"), to: scratch.file("f"),
      resumingFrom: DownloadResumeData(
        partialFile: whole, url: "", validator: "\"v1\"", bytes: 1000, totalBytes: nil)
    ).finished()
    #expect(try Data(contentsOf: complete.url) == body)
    #expect(flaky.requests.count == 1)
    // The partial file is longer than the (shrunk) resource: 416, then the whole body.
    let longer = scratch.file("longer")
    try patternBytes(1500).write(to: longer)
    let (restarted, last) = try await run(
      flaky.client.download(
        Request<Data>(path: "f"), to: scratch.file("g"),
        resumingFrom: DownloadResumeData(
          partialFile: longer, url: "", validator: "\"v1\"", bytes: 1500, totalBytes: nil)))
    #expect(try Data(contentsOf: restarted.url) == body)
    #expect(last?.restarts == 1)
    #expect(flaky.requests.count == 3)
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
    let flaky = try Flaky(
      LoopbackResource(body: body, etag: "\"big\""), dropAfter: 40 * 1024 * 1024)
    defer { flaky.server.stop() }
    let (file, _) = try await run(
      flaky.client.download(Request<Data>(path: "big"), to: scratch.file("big")), opening: flaky.cut
    )
    let received = try Data(contentsOf: file.url)
    #expect(received.count == body.count)
    #expect(received == body)
    #expect(flaky.requests.count == 2)
    #expect((rangeStart(flaky.requests.last) ?? 0) > 0)
  }
}
