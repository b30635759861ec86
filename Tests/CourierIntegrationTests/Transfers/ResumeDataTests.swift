import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Resume data across clients and launches, and what is made of range answers, over real
/// sockets.
@Suite("Resume data and range answers", .timeLimit(.minutes(2)))
struct ResumeDataTests {
  /// Resumes a download of `/f` on `server` into `scratch` from 100 bytes already there
  /// (validator `"v1"`, of `total`), expecting it to fail: the error it failed with.
  static func resumedError(
    _ server: LoopbackServer, total: Int64?, in scratch: ScratchDirectory,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> HTTPError? {
    let partial = scratch.file("partial")
    try patternBytes(100).write(to: partial)
    let data = DownloadResumeData(
      partialFile: partial, url: "", validator: "\"v1\"", bytes: 100, totalBytes: total)
    return await #expect(throws: HTTPError.self, sourceLocation: sourceLocation) {
      try await HTTPClient(baseURL: server.baseURL).download(
        Request<Data>(path: "f"), to: scratch.file("f"), resumingFrom: data
      ).finished()
    }
  }

  @Test("resume data from one client lets another finish the download, from a fresh URL")
  func resumeDataAcrossClients() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(600_000)
    let flaky = try FlakyServer(
      LoopbackResource(body: body, etag: "\"v1\""), dropAfter: 250_000)
    defer { flaky.server.stop() }
    let kept = Locked<DownloadResumeData?>(nil)
    let options = TransferOptions(
      maximumResumeAttempts: 0, resumeData: { data in kept.withLock { $0 = data } })
    await flaky.expectFailure(
      Request<Data>(path: "f", query: ["api_key": "secret-key-1"]), to: scratch.file("f"),
      options: options)
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
    let (file, last) = try await runTransfer(
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
    let flaky = try FlakyServer(
      LoopbackResource(body: patternBytes(300_000), etag: "\"v1\""), dropAfter: 50_000)
    defer { flaky.server.stop() }
    let kept = Locked<DownloadResumeData?>(nil)
    let options = TransferOptions(resumeData: { data in kept.withLock { $0 = data } })
    await flaky.expectFailure(
      Request<Data>(path: "f", headers: ["Range": "bytes=100000-"]), to: scratch.file("f"),
      options: options)
    #expect(flaky.requests.count == 1)
    #expect(kept.withLock { $0 } == nil)
    #expect(scratch.contents.isEmpty)
  }

  @Test(
    "resume data whose partial file is missing or of another size, or whose validator no header can carry, is refused, sending nothing"
  )
  func badResumeData() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let flaky = try FlakyServer(
      LoopbackResource(body: patternBytes(1000), etag: "\"v1\""), dropAfter: 0)
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
    // Tampered: a validator no header can carry would have its If-Range dropped by
    // Foundation, and the server's 206 spliced onto other bytes.
    let tampered = DownloadResumeData(
      partialFile: partial, url: "", validator: "\"v1\"\r\nX-Evil: 1", bytes: 100,
      totalBytes: 1000)
    let error = await #expect(throws: HTTPError.self) {
      try await flaky.client.download(
        Request<Data>(path: "f"), to: scratch.file("f"), resumingFrom: tampered
      ).finished()
    }
    #expect(error?.invalidRequestReason?.contains("validator") == true)
    #expect(flaky.requests.isEmpty)
    #expect(FileManager.default.fileExists(atPath: partial.path), "the partial file is kept")
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
      let error = try await Self.resumedError(server, total: 200, in: scratch)
      guard case .transport(let urlError) = error else {
        Issue.record("expected a transport error for \(headers), got \(String(describing: error))")
        continue
      }
      #expect(urlError.code == .badServerResponse)
      #expect(scratch.contents.isEmpty, "nothing is left for \(headers)")
      #expect(server.requestCount == 1)
    }
  }

  @Test("a range answer of another Last-Modified than the kept date is an error, no splice")
  func misfittingLastModified() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let kept = Date(timeIntervalSince1970: 1_790_000_000)
    let body = patternBytes(200)
    // The same date continues the kept bytes; a later one (a server that ignored If-Range
    // and sends the rest of a newer file) is another representation.
    for (modified, fits) in [(kept, true), (kept.addingTimeInterval(86_400), false)] {
      let server = try LoopbackServer { _, response in
        try await response.send(
          status: 206,
          headers: [
            "Content-Range": "bytes 100-199/200",
            "Last-Modified": LoopbackResource.format(modified),
          ],
          body: body.suffix(100))
      }
      defer { server.stop() }
      let partial = scratch.file("partial")
      try body.prefix(100).write(to: partial)
      let data = DownloadResumeData(
        partialFile: partial, url: "", validator: LoopbackResource.format(kept), bytes: 100,
        totalBytes: 200)
      let download = HTTPClient(baseURL: server.baseURL).download(
        Request<Data>(path: "f"), to: scratch.file("f"), resumingFrom: data)
      if fits {
        let file = try await download.finished()
        #expect(try Data(contentsOf: file.url) == body)
        try FileManager.default.removeItem(at: file.url)
      } else {
        let error = await #expect(throws: HTTPError.self) { try await download.finished() }
        #expect(error?.urlErrorCode == .badServerResponse)
      }
      #expect(scratch.contents.isEmpty)
    }
  }

  @Test(
    "a range answer whose body is longer or shorter than its Content-Range is an error",
    arguments: [300, 50])
  func rangeLengthChecked(bodyBytes: Int) async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    // An unknown total (`*`), so that only the range itself says where the file ends.
    let server = try LoopbackServer { _, response in
      try await response.send(
        status: 206, headers: ["Content-Range": "bytes 100-199/*", "ETag": "\"v1\""],
        body: patternBytes(bodyBytes))
    }
    defer { server.stop() }
    let error = try await Self.resumedError(server, total: nil, in: scratch)
    guard case .transport(let urlError) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(urlError.code == .badServerResponse)
    #expect(scratch.contents.isEmpty)
  }

  @Test(
    "a range answer of unknown total (bytes a-b/*) continues the kept bytes when a-b is the rest asked for",
    arguments: [nil, 200] as [Int64?])
  func unknownTotalAccepted(keptTotal: Int64?) async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(200)
    let server = try LoopbackServer { request, response in
      #expect(request.headers["Range"] == "bytes=100-")
      try await response.send(
        status: 206, headers: ["Content-Range": "bytes 100-199/*", "ETag": "\"v1\""],
        body: body.suffix(100))
    }
    defer { server.stop() }
    let partial = scratch.file("partial")
    try body.prefix(100).write(to: partial)
    let data = DownloadResumeData(
      partialFile: partial, url: "", validator: "\"v1\"", bytes: 100, totalBytes: keptTotal)
    let file = try await HTTPClient(baseURL: server.baseURL).download(
      Request<Data>(path: "f"), to: scratch.file("f"), resumingFrom: data
    ).finished()
    #expect(try Data(contentsOf: file.url) == body)
    #expect(scratch.contents == ["f"])
  }

  @Test("a range answer of unknown total that starts elsewhere than the kept bytes is refused")
  func unknownTotalMisfit() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    for range in ["bytes 0-99/*", "bytes 150-199/*"] {
      let server = try LoopbackServer { _, response in
        try await response.send(
          status: 206, headers: ["Content-Range": range, "ETag": "\"v1\""],
          body: patternBytes(range.hasPrefix("bytes 0") ? 100 : 50))
      }
      defer { server.stop() }
      let error = try await Self.resumedError(server, total: nil, in: scratch)
      #expect(error?.urlErrorCode == .badServerResponse, "\(range)")
      #expect(scratch.contents.isEmpty, "\(range)")
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
    let error = try await Self.resumedError(server, total: nil, in: scratch)
    #expect("\(String(describing: error))".contains("300"))
    #expect(scratch.contents.isEmpty)
  }

  @Test(
    "a 206 to a download that asked for no range is badServerResponse, and leaves no file",
    arguments: ["bytes 0-99/*", "bytes 0-99/100", "bytes 0-99/1000"])
  func rangeAnswerUnasked(contentRange: String) async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let server = try LoopbackServer { _, response in
      try await response.send(
        status: 206, headers: ["Content-Range": contentRange, "ETag": "\"v1\""],
        body: patternBytes(100))
    }
    defer { server.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await HTTPClient(baseURL: server.baseURL).download(
        Request<Data>(path: "f"), to: scratch.file("f")
      ).finished()
    }
    guard case .transport(let urlError) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(urlError.code == .badServerResponse)
    #expect(scratch.contents.isEmpty)
    #expect(server.requestCount == 1)
  }

  @Test("a download whose request asks for a range itself keeps the 206's bytes as the file")
  func rangeAnswerAsked() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let server = try LoopbackServer { request, response in
      #expect(request.headers["Range"] == "bytes=0-99")
      try await response.send(
        status: 206, headers: ["Content-Range": "bytes 0-99/1000", "ETag": "\"v1\""],
        body: patternBytes(100))
    }
    defer { server.stop() }
    let file = try await HTTPClient(baseURL: server.baseURL).download(
      Request<Data>(path: "f", headers: ["Range": "bytes=0-99"]), to: scratch.file("f")
    ).finished()
    #expect(file.response.status == 206)
    #expect(try Data(contentsOf: file.url) == patternBytes(100))
    #expect(scratch.contents == ["f"])
  }

  @Test("a 416 completes a download that already has every byte, and restarts one that does not")
  func rangeNotSatisfiable() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = patternBytes(1000)
    let flaky = try FlakyServer(
      LoopbackResource(body: body, etag: "\"v1\""), drops: 0, dropAfter: 0)
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
    let (restarted, last) = try await runTransfer(
      flaky.client.download(
        Request<Data>(path: "f"), to: scratch.file("g"),
        resumingFrom: DownloadResumeData(
          partialFile: longer, url: "", validator: "\"v1\"", bytes: 1500, totalBytes: nil)))
    #expect(try Data(contentsOf: restarted.url) == body)
    #expect(last?.restarts == 1)
    #expect(flaky.requests.count == 3)
  }
}
