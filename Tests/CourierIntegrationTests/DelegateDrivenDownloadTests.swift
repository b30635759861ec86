import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Downloads driven by the session delegate: the way ``URLSessionTransport`` downloads on
/// Apple platforms, where a completion-handler download task reports nothing until the end.
/// FoundationNetworking calls the same delegate methods, so the code path runs here too.
@Suite(
  "Downloads driven by the session delegate (the Apple platforms' way)", .timeLimit(.minutes(1)))
struct DelegateDrivenDownloadTests {
  private func transport() -> URLSessionTransport {
    URLSessionTransport(
      configuration: URLSessionTransport.defaultSessionConfiguration(),
      downloads: .sessionDelegate)
  }

  private func client(for server: LoopbackServer) -> HTTPClient {
    HTTPClient(baseURL: server.baseURL, transport: transport())
  }

  @Test("the transport keeps the whole contract", arguments: TransportConformance.checks)
  func conformance(_ check: TransportConformance.Check) async throws {
    try await check.run(on: transport())
  }

  @Test("the file arrives whole, with progress that climbs to the total")
  func wholeFile() async throws {
    let size = 3_000_000
    let server = try LoopbackServer { _, response in try await response.sendPattern(size: size) }
    defer { server.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let destination = scratch.file("file.bin")
    var progress: [TransferProgress] = []
    var done: DownloadedFile?
    for try await event in client(for: server).download(Request<Data>(path: "f"), to: destination) {
      switch event {
      case .progress(let now): progress.append(now)
      case .completed(let file): done = file
      }
    }
    #expect(try #require(done).response.status == 200)
    #expect(try Data(contentsOf: destination) == patternBytes(size))
    #expect(scratch.contents == ["file.bin"])
    #expect(!progress.isEmpty)
    #expect(
      zip(progress, progress.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
    #expect(
      progress.last == TransferProgress(completedBytes: Int64(size), expectedBytes: Int64(size)))
  }

  @Test("progress arrives while the body is still coming, so a caller can cancel on it")
  func progressBeforeTheEnd() async throws {
    let partial = PartialDownload()
    let server = try LoopbackServer { _, response in
      try await response.writeHead(contentLength: 10_000_000)
      try await response.write(partial.marker + patternBytes(100_000))
      await response.clientDisconnected()  // the rest never comes
    }
    defer { server.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let firstBytes = Signal()
    let transfer = client(for: server).download(Request<Data>(path: "slow"), to: scratch.file("x"))
    let task = Task {
      for try await event in transfer {
        if case .progress(let progress) = event, progress.completedBytes > 0 { firstBytes.fire() }
      }
    }
    await watched { await firstBytes.wait() }
    task.cancel()
    await expectCancelled(task)
    #expect(scratch.contents.isEmpty)
  }

  @Test("a body past the limit fails as the bytes arrive, without waiting for the rest")
  func limitAsBytesArrive() async throws {
    let server = try LoopbackServer { _, response in
      // No Content-Length to refuse early, and a body that never ends: only counting the
      // bytes as they are written can end this download.
      try await response.writeHead(headers: ["Content-Type": "application/octet-stream"])
      try await response.write(patternBytes(600_000))
      await response.clientDisconnected()
    }
    defer { server.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let error = await #expect(throws: HTTPError.self) {
      try await client(for: server).download(
        Request<Data>(path: "endless"), to: scratch.file("x"),
        options: TransferOptions(maximumBytes: 200_000)
      ).finished()
    }
    #expect(error == .responseTooLarge(limit: 200_000))
    #expect(scratch.contents.isEmpty)
  }

  @Test("a 404 throws unacceptableStatus with the error body, and leaves no file")
  func notFound() async throws {
    let server = try LoopbackServer { _, response in
      try await response.send(status: 404, json: #"{"status_message":"no such file"}"#)
    }
    defer { server.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let error = await #expect(throws: HTTPError.self) {
      try await client(for: server).download(Request<Data>(path: "missing"), to: scratch.file("x"))
        .finished()
    }
    guard case .unacceptableStatus(let response) = error else {
      Issue.record("expected unacceptableStatus, got \(String(describing: error))")
      return
    }
    #expect(String(decoding: response.body, as: UTF8.self).contains("no such file"))
    #expect(scratch.contents.isEmpty)
  }
}
