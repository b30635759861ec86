import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// URLSession's own partial file for a download, found by the unique bytes its body starts
/// with. On Linux, FoundationNetworking writes it to the temporary directory and, after a
/// failure or a cancellation, leaves it there for good unless Courier deletes it; Apple
/// platforms delete their own, and there it is never looked for.
struct PartialDownload {
  /// Bytes no other download starts with.
  let marker = Data("courier-partial-\(UUID().uuidString)".utf8)

  /// The temporary file whose first bytes are `marker` (URLSession's or Courier's), if
  /// there is one now. Looked for on a thread of its own: a shared temporary directory holds
  /// thousands of entries (from builds), and looking through them held a thread of the
  /// cooperative pool for seconds, which stalled every other test of the run meanwhile.
  ///
  /// The directory is listed again if a listing misses it: other tests create and delete
  /// files there meanwhile.
  func find() async -> URL? {
    let marker = marker
    return await onOwnThread {
      for _ in 0..<3 {
        if let found = Self.find(marker) { return found }
      }
      return nil
    }
  }

  /// One look through the temporary directory with `readdir(3)`, which lists names and types
  /// only (Foundation's resource values also read every entry's extended attributes and its
  /// owner's name in the user database): only a regular file at least as long as the marker
  /// is opened.
  private static func find(_ marker: Data) -> URL? {
    let directory = NSTemporaryDirectory()
    guard let listing = opendir(directory) else { return nil }
    defer { closedir(listing) }
    while let entry = readdir(listing) {
      guard entry.pointee.d_type == UInt8(DT_REG) || entry.pointee.d_type == UInt8(DT_UNKNOWN)
      else { continue }
      // Read in place: the entry may be shorter than `dirent` (its name is as long as it
      // needs), so copying `d_name`'s 256 bytes out read past it (AddressSanitizer).
      let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
      let name = String(
        cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
      let file = URL(fileURLWithPath: directory).appendingPathComponent(name)
      var status = stat()
      guard stat(file.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
        status.st_size >= marker.count, let handle = try? FileHandle(forReadingFrom: file)
      else { continue }
      defer { try? handle.close() }
      if (try? handle.read(upToCount: marker.count)) == marker { return file }
    }
    return nil
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
    // Not resumable (resuming is ResumableDownloadTests).
    let transfer = loopback.client.download(
      Request<Data>(path: "big"), to: destination,
      options: TransferOptions(maximumResumeAttempts: 0))
    for try await event in transfer {
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
    let partial = PartialDownload()
    let firstBytes = Signal()
    let server = try LoopbackServer { _, response in
      try await response.writeHead(contentLength: 10_000_000)
      try await response.write(partial.marker + patternBytes(100_000))
      await response.clientDisconnected()  // holds the rest back until the client gives up
    }
    defer { server.stop() }
    // URLSession's partial file is what this looks for.
    let client = HTTPClient(baseURL: server.baseURL, transport: URLSessionTransport())
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    // Not resumable: a download task on Apple platforms (it streams on Linux).
    let transfer = client.download(
      Request<Data>(path: "slow"), to: scratch.file("x"),
      options: TransferOptions(maximumResumeAttempts: 0))
    let markerSize = Int64(partial.marker.count)
    let task = Task {
      for try await event in transfer {
        if case .progress(let progress) = event, progress.completedBytes >= markerSize {
          firstBytes.fire()
        }
      }
    }
    await watched { await firstBytes.wait() }
    task.cancel()
    await expectCancelled(task)
    #expect(scratch.contents.isEmpty)
    // The caller is resumed at once; a partial file (URLSession's on Apple platforms, where
    // it deletes its own; none on Linux, where the download streams) is gone once the
    // transport has stopped, which nothing announces: looked for every 10 ms, under the
    // watchdog.
    await watched {
      while await partial.find() != nil { try? await Task.sleep(for: .milliseconds(10)) }
    }
    #expect(await partial.find() == nil)
  }

  @Test("a connection closed mid-body fails the download and leaves no file anywhere")
  func truncated() async throws {
    let partial = PartialDownload()
    let cut = Gate()
    let server = try LoopbackServer { _, response in
      try await response.writeHead(contentLength: 1_000_000)
      try await response.write(partial.marker + patternBytes(1000))
      await cut.wait()
      response.closeConnection()
    }
    defer { server.stop() }
    // URLSession's partial file is what this looks for.
    let client = HTTPClient(baseURL: server.baseURL, transport: URLSessionTransport())
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let markerSize = Int64(partial.marker.count)
    var leftover: URL?
    var failure: HTTPError?
    do throws(HTTPError) {
      // Not resumable: a download task on Apple platforms (it streams on Linux).
      let transfer = client.download(
        Request<Data>(path: "cut"), to: scratch.file("x"),
        options: TransferOptions(maximumResumeAttempts: 0))
      for try await event in transfer {
        guard case .progress(let progress) = event, progress.completedBytes >= markerSize,
          leftover == nil
        else { continue }
        leftover = await partial.find()
        cut.open()
      }
    } catch {
      failure = error
    }
    #expect(failure != nil)
    #expect(scratch.contents.isEmpty)
    // The failure reaches the caller only after the partial file, if any, is deleted.
    if let leftover { #expect(!FileManager.default.fileExists(atPath: leftover.path)) }
    #expect(await partial.find() == nil)
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
      URL(string: "https://user:S3CRET@example.com/x")!,
    ] {
      let error = await #expect(throws: HTTPError.self) {
        try await loopback.client.download(Request<Data>(path: "big"), to: destination)
          .finished()
      }
      #expect(error?.invalidRequestReason?.contains("download destination") == true)
      #expect(error?.invalidRequestReason?.contains("S3CRET") == false)
    }
    // The same for a cache directory that is no file URL.
    #expect(throws: HTTPError.self) {
      _ = try HTTPCache(directory: URL(string: "https://user:S3CRET@example.com/cache")!)
    }
    do {
      _ = try HTTPCache(directory: URL(string: "https://user:S3CRET@example.com/cache")!)
    } catch {
      #expect(error.invalidRequestReason?.contains("S3CRET") == false, "\(error)")
    }
    #expect(loopback.server.requestCount == 0)
    #expect(scratch.contents.isEmpty)
  }

  @Test("a destination in a directory that cannot be written is refused, and nothing is sent")
  func unwritableDestination() async throws {
    let loopback = try bigFileServer(size: 10)
    defer { loopback.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    #if os(Linux)
      // No file can be made in /proc, not even by root (as tests may run here).
      let directory = URL(fileURLWithPath: "/proc")
    #else
      let directory = scratch.file("read-only")
      try FileManager.default.createDirectory(
        at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o500])
    #endif
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.download(
        Request<Data>(path: "big"), to: directory.appendingPathComponent("x.bin")
      ).finished()
    }
    #expect(
      error?.invalidRequestReason?.contains("cannot be written") == true,
      "\(String(describing: error))")
    #expect(loopback.server.requestCount == 0)
    // The same download to a directory that can be written goes ahead.
    let file = try await loopback.client.download(
      Request<Data>(path: "big"), to: scratch.file("x.bin")
    ).finished()
    #expect(try Data(contentsOf: file.url).count == 10)
    #expect(loopback.server.requestCount == 1)
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

  @Test(
    "a session of your own: a download and a byte stream arrive whole, and no spool is left"
  )
  func borrowedSession() async throws {
    let partial = PartialDownload()
    let content = partial.marker + Data(repeating: 7, count: 3_000_000)
    let server = try LoopbackServer { _, response in try await response.send(body: content) }
    defer { server.stop() }
    let own = OwnSession()
    defer { own.invalidate() }
    let client = HTTPClient(baseURL: server.baseURL, transport: own.transport)
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let file = try await client.download(Request<Data>(path: "f"), to: scratch.file("f"))
      .finished()
    #expect(try Data(contentsOf: file.url) == content)
    var streamed = Data()
    for try await chunk in try await client.bytes(Request<Data>(path: "f")) {
      streamed.append(chunk)
    }
    #expect(streamed == content)
    // On Linux, FoundationNetworking's download task spooled each body to a temporary file:
    // the body owned it, and deleted it when it went.
    #expect(await partial.find() == nil)
    let refused = await #expect(throws: HTTPError.self) {
      try await client.download(
        Request<Data>(path: "f"), to: scratch.file("g"),
        options: TransferOptions(maximumBytes: 1_000_000)
      ).finished()
    }
    #expect(refused == .responseTooLarge(limit: 1_000_000))
    #expect(await partial.find() == nil)
  }

  #if canImport(FoundationNetworking)
    @Test("a session of your own on Linux: a body cut off mid-way leaves the task's spool behind")
    func borrowedSessionCutOff() async throws {
      let partial = PartialDownload()
      let server = try LoopbackServer { _, response in
        try await response.writeHead(contentLength: 1_000_000)
        try await response.write(partial.marker + Data(count: 100_000))
        response.closeConnection()
      }
      defer { server.stop() }
      let own = OwnSession()
      defer { own.invalidate() }
      let client = HTTPClient(baseURL: server.baseURL, transport: own.transport)
      await #expect(throws: HTTPError.self) {
        for try await _ in try await client.bytes(Request<Data>(path: "f")) {}
      }
      // FoundationNetworking names its file where nothing public says (PlatformNotes).
      let left = try #require(await partial.find())
      try FileManager.default.removeItem(at: left)
    }
  #endif
}
