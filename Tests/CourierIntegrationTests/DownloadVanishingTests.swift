import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// A download whose directory is removed (or whose file is deleted) while the body arrives
/// failed as a `badServerResponse` blaming the server ("the downloaded file has 0 bytes where
/// the server announced 200000"), or, without a `Content-Length`, as a bare `cannotMoveFile`:
/// the failure is the local file's, and says so.
@Suite("Downloads whose directory goes away", .timeLimit(.minutes(1)))
struct DownloadVanishingTests {
  /// A server that sends half a 200,000-byte body, waits for `gate`, then sends the rest:
  /// announced in `Content-Length`, or chunked.
  private func server(chunked: Bool, gate: Gate) throws -> Loopback {
    try Loopback { _, response in
      try await response.writeHead(contentLength: chunked ? nil : 200_000)
      try await response.write(Data(repeating: 1, count: 100_000))
      await gate.wait()
      try await response.write(Data(repeating: 2, count: 100_000))
      try await response.finish()
    }
  }

  /// Downloads to `directory/x`, running `midway` once the first bytes have been taken for
  /// the file (it is open then), and opening `gate` after it.
  private func download(
    from loopback: Loopback, into directory: URL, gate: Gate, midway: () throws -> Void
  ) async throws -> Result<DownloadedFile, HTTPError> {
    var ran = false
    do throws(HTTPError) {
      for try await event in loopback.client.download(
        Request<Data>(path: "file"), to: directory.appendingPathComponent("x"))
      {
        switch event {
        case .progress:
          if !ran {
            ran = true
            try? midway()
            gate.open()
          }
        case .completed(let file):
          return .success(file)
        }
      }
    } catch {
      gate.open()
      return .failure(error)
    }
    Issue.record("the download ended without an outcome")
    return .failure(.cancelled)
  }

  @Test(
    "a directory removed mid-download fails with cannotWriteToFile naming the file",
    arguments: [false, true])
  func directoryRemoved(chunked: Bool) async throws {
    let gate = Gate()
    let loopback = try server(chunked: chunked, gate: gate)
    defer { loopback.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let directory = scratch.file("downloads")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
    let result = try await download(from: loopback, into: directory, gate: gate) {
      try FileManager.default.removeItem(at: directory)
    }
    guard case .failure(let error) = result else {
      Issue.record("expected a failure, got \(result)")
      return
    }
    #expect(error.urlErrorCode == .cannotWriteToFile, "\(error)")
    #expect(error.description.contains("was deleted, or its directory removed"), "\(error)")
    #expect(!error.description.contains("server announced"), "\(error)")
    #expect(scratch.contents.isEmpty)
  }

  /// Was a bare "URL loading failed (URLError -3005)".
  @Test("a destination made a directory mid-download fails with cannotMoveFile saying why")
  func destinationBecomesDirectory() async throws {
    let gate = Gate()
    let loopback = try server(chunked: false, gate: gate)
    defer { loopback.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let result = try await download(from: loopback, into: scratch.url, gate: gate) {
      try FileManager.default.createDirectory(
        at: scratch.file("x").appendingPathComponent("inside"), withIntermediateDirectories: true)
    }
    guard case .failure(let error) = result else {
      Issue.record("expected a failure, got \(result)")
      return
    }
    #expect(error.urlErrorCode == .cannotMoveFile, "\(error)")
    #expect(error.description.contains("cannot be put at \(scratch.file("x").path)"), "\(error)")
    #expect(scratch.contents == ["x"])
  }

  @Test(
    "the good-path twin: the same download with its directory left in place completes",
    arguments: [false, true])
  func directoryKept(chunked: Bool) async throws {
    let gate = Gate()
    let loopback = try server(chunked: chunked, gate: gate)
    defer { loopback.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let result = try await download(from: loopback, into: scratch.url, gate: gate) {}
    let file = try result.get()
    #expect(try Data(contentsOf: file.url).count == 200_000)
    #expect(scratch.contents == ["x"])
  }
}
