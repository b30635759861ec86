import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A transport that reports the partial files of failed download tasks it deletes.
struct LeftoverWatcher {
  let transport = URLSessionTransport()
  private let removed = Locked<URL?>(nil)
  private let signal = Signal()

  init() {
    let removed = self.removed
    let signal = self.signal
    transport.delegate.onLeftoverRemoved.withLock {
      $0 = { url in
        removed.withLock { $0 = url }
        signal.fire()
      }
    }
  }

  /// Expects URLSession's own partial file (on Linux it would stay in /tmp for good) to have
  /// been found and deleted once the failed or cancelled task completed.
  func expectRemoved(sourceLocation: SourceLocation = #_sourceLocation) async {
    #if canImport(FoundationNetworking)
      await watched(sourceLocation: sourceLocation) { await signal.wait() }
      guard let leftover = removed.withLock({ $0 }) else { return }
      #expect(leftover.pathExtension == "tmp", sourceLocation: sourceLocation)
      #expect(
        !FileManager.default.fileExists(atPath: leftover.path), sourceLocation: sourceLocation)
    #endif
  }
}

@Suite("Downloads to disk", .timeLimit(.minutes(2)))
struct DownloadTests {
  /// A server whose `/3/big` sends `size` pattern bytes in 251 KiB writes (whole cycles of
  /// the pattern, so one buffer serves every write).
  private func bigFileServer(size: Int) throws -> Loopback {
    try Loopback { request, response in
      guard request.path == "/3/big" else {
        try await response.send(status: 404, text: #"{"status_message":"no such file"}"#)
        return
      }
      try await response.sendPattern(size: size)
    }
  }

  @Test("200 MB to disk through a download task: every byte in place, progress climbs to the total")
  func largeDownload() async throws {
    let size = 200 * 1024 * 1024
    let loopback = try bigFileServer(size: size)
    defer { loopback.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let destination = scratch.file("big.bin")
    ResidentMemory.resetPeak()
    let before = ResidentMemory.current ?? 0
    var progress: [TransferProgress] = []
    var download: DownloadedFile?
    for try await event in loopback.client.download(Request<Data>(path: "big"), to: destination) {
      switch event {
      case .progress(let now):
        progress.append(now)
      case .completed(let file):
        download = file
      }
    }
    let file = try #require(download)
    #expect(file.url == destination)
    #expect(file.response.status == 200)
    #expect(scratch.contents == ["big.bin"])  // no temporary file left
    let attributes = try FileManager.default.attributesOfItem(atPath: destination.path)
    #expect((attributes[.size] as? NSNumber)?.intValue == size)
    let handle = try FileHandle(forReadingFrom: destination)
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(size - 4096))
    #expect(try handle.read(upToCount: 4096) == patternBytes(4096, from: size - 4096))

    #expect(!progress.isEmpty)
    #expect(
      zip(progress, progress.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
    #expect(
      progress.last == TransferProgress(completedBytes: Int64(size), expectedBytes: Int64(size)))
    #expect(progress.last?.fraction == 1)
    // Reported, not asserted: the peak is the whole process's, and other tests run
    // alongside (one holds a 50 MB request body). Run alone, this test's peak grows by 3–7
    // MiB for the 200 MB file; the benchmark measures a download in a process of its own.
    let growth = (ResidentMemory.peak ?? 0) - before
    print("200 MB download: peak resident memory grew by \(growth / 1_048_576) MiB")
  }

  @Test("a 404 throws unacceptableStatus with the error body, and leaves no file")
  func notFound() async throws {
    let loopback = try bigFileServer(size: 10)
    defer { loopback.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.download(Request<Data>(path: "missing"), to: scratch.file("x"))
        .finished()
    }
    guard case .unacceptableStatus(let response) = error else {
      Issue.record("expected unacceptableStatus, got \(String(describing: error))")
      return
    }
    #expect(response.status == 404)
    #expect(String(decoding: response.body, as: UTF8.self).contains("no such file"))
    #expect(scratch.contents.isEmpty)
  }

  @Test("a download cancelled mid-body resumes its caller at once and leaves no file anywhere")
  func cancelled() async throws {
    let firstBytes = Signal()
    let server = try LoopbackServer { _, response in
      try await response.writeHead(contentLength: 10_000_000)
      try await response.write(patternBytes(100_000))
      await response.clientDisconnected()  // holds the rest back until the client gives up
    }
    defer { server.stop() }
    let watcher = LeftoverWatcher()
    let client = HTTPClient(baseURL: server.baseURL, transport: watcher.transport)
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let transfer = client.download(Request<Data>(path: "slow"), to: scratch.file("x"))
    let task = Task {
      for try await event in transfer {
        if case .progress(let progress) = event, progress.completedBytes > 0 { firstBytes.fire() }
      }
    }
    await watched { await firstBytes.wait() }
    task.cancel()
    await expectCancelled(task)
    #expect(scratch.contents.isEmpty)
    await watcher.expectRemoved()
  }

  @Test("a connection closed mid-body fails the download and leaves no file anywhere")
  func truncated() async throws {
    let server = try LoopbackServer { _, response in
      try await response.writeHead(contentLength: 1_000_000)
      try await response.write(patternBytes(1000))
      response.closeConnection()
    }
    defer { server.stop() }
    let watcher = LeftoverWatcher()
    let client = HTTPClient(baseURL: server.baseURL, transport: watcher.transport)
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    await #expect(throws: HTTPError.self) {
      try await client.download(Request<Data>(path: "cut"), to: scratch.file("x")).finished()
    }
    #expect(scratch.contents.isEmpty)
    await watcher.expectRemoved()
  }

  @Test("an existing file is replaced whole, only once the new body is complete")
  func replaces() async throws {
    let loopback = try bigFileServer(size: 300_000)
    defer { loopback.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let destination = scratch.file("page.bin")
    try Data("old".utf8).write(to: destination)
    _ = try await loopback.client.download(Request<Data>(path: "big"), to: destination).finished()
    #expect(try Data(contentsOf: destination) == patternBytes(300_000))
    #expect(scratch.contents == ["page.bin"])
  }

  @Test("a destination that is a directory, or in a missing one, is refused and nothing is sent")
  func badDestination() async throws {
    let loopback = try bigFileServer(size: 10)
    defer { loopback.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    for destination in [
      scratch.url, scratch.file("missing/x.bin"), URL(string: "https://example.com/x")!,
    ] {
      let error = await #expect(throws: HTTPError.self) {
        try await loopback.client.download(Request<Data>(path: "big"), to: destination)
          .finished()
      }
      #expect(error?.invalidRequestReason?.contains("download destination") == true)
    }
    #expect(loopback.server.requestCount == 0)
    #expect(scratch.contents.isEmpty)
  }

  @Test("a body over the transfer's limit fails, and leaves no file")
  func overLimit() async throws {
    let loopback = try bigFileServer(size: 5_000_000)
    defer { loopback.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.download(
        Request<Data>(path: "big"), to: scratch.file("x"),
        options: TransferOptions(maximumBytes: 1_000_000)
      ).finished()
    }
    #expect(error == .responseTooLarge(limit: 1_000_000))
    #expect(scratch.contents.isEmpty)
  }
}
