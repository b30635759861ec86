import Foundation
import Testing

@testable import Courier

/// ``SpoolFile`` is the one way a body goes to disk on its way: a download task's file it
/// adopts, a request body written for a transport that sends only files, and a streamed
/// response's overflow (``ChunkBufferTests``).
@Suite("A body spooled to disk")
struct SpoolFileTests {
  private func downloaded(_ content: Data) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-spool-test-\(UUID().uuidString)")
    try content.write(to: url)
    return url
  }

  private func exists(_ url: URL?) -> Bool {
    url.map { FileManager.default.fileExists(atPath: $0.path) } ?? false
  }

  @Test("a download task's file, adopted, loses its name at once and is read whole, in chunks")
  func adopted() async throws {
    let content = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
    let url = try downloaded(content)
    let spool = try #require(SpoolFile(adopting: url))
    #expect(!exists(url))
    #expect(spool.size == 200_000)
    var chunks = 0
    var read = Data()
    for try await chunk in TransportResponseBody(spooled: spool) {
      chunks += 1
      read.append(chunk)
    }
    #expect(read == content)
    #expect(chunks > 1)
  }

  @Test("an adopted body over the reader's limit fails with responseTooLarge")
  func limited() async throws {
    let spool = try #require(SpoolFile(adopting: try downloaded(Data(count: 100_000))))
    await #expect(throws: HTTPError.responseTooLarge(limit: 1_000)) {
      try await TransportResponseBody(spooled: spool).collect(upTo: 1_000)
    }
  }

  @Test("a file that cannot be opened is not adopted")
  func missing() {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-spool-test-\(UUID().uuidString)")
    #expect(SpoolFile(adopting: url) == nil)
  }

  @Test("a named spool keeps its name for another reader until removeName or its last reference")
  func named() throws {
    var spool = SpoolFile(named: true)
    let url = try #require(spool?.url)
    #expect(spool?.write(Data("hello".utf8), at: 0) == true)
    #expect(try Data(contentsOf: url) == Data("hello".utf8))
    spool?.removeName()
    #expect(!exists(url))
    #expect(spool?.read(64, at: 0) == Data("hello".utf8))
    let second = try #require(SpoolFile(named: true))
    let secondURL = try #require(second.url)
    spool = nil
    #expect(exists(secondURL))
    _ = consume second
    #expect(!exists(secondURL))
  }

  @Test("an unnamed spool has no name on disk, and reads what was written at any offset")
  func unnamed() throws {
    let spool = try #require(SpoolFile())
    #expect(spool.url == nil)
    #expect(spool.write(Data("world".utf8), at: 5))
    #expect(spool.write(Data("hello".utf8), at: 0))
    #expect(spool.read(5, at: 5) == Data("world".utf8))
    #expect(spool.read(100, at: 3) == Data("loworld".utf8))
    #expect(spool.read(10, at: 10) == Data())
  }

  @Test("a streamed request body written whole to a named spool, read back by its path")
  func requestBody() async throws {
    let parts = [Data("one ".utf8), Data("two ".utf8), Data("three".utf8)]
    let body = TransportRequestBody.stream(
      AsyncStream { continuation in
        for part in parts { continuation.yield(part) }
        continuation.finish()
      })
    let (url, spool) = try await body.wholeFile()
    #expect(spool?.url == url)
    #expect(try Data(contentsOf: url) == Data("one two three".utf8))
    withExtendedLifetime(spool) {}  // its name goes with it
  }

  @Test("a request body from a file is sent from that file, not spooled")
  func requestBodyFromFile() async throws {
    let url = try downloaded(Data("kept".utf8))
    defer { try? FileManager.default.removeItem(at: url) }
    let (sent, spool) = try await TransportRequestBody.file(url).wholeFile()
    #expect(sent == url)
    #expect(spool == nil)
  }

  @Test("a request body whose stream fails leaves no spool behind")
  func requestBodyFails() async throws {
    let marker = Data("partial \(UUID())".utf8)
    let body = TransportRequestBody.stream {
      AsyncThrowingStream { continuation in
        continuation.yield(marker)
        continuation.finish(throwing: URLError(.networkConnectionLost))
      }
    }
    await #expect(throws: HTTPError.self) { _ = try await body.wholeFile() }
    #expect(spools(startingWith: marker).isEmpty)
  }

  /// The named spools in the temporary directory that start with `marker` (other tests'
  /// spools come and go beside them).
  private func spools(startingWith marker: Data) -> [String] {
    let directory = FileManager.default.temporaryDirectory
    let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
    return (names ?? []).filter { name in
      guard name.hasPrefix("courier-body-"),
        case .contents(let data) = FileBytes.load(
          directory.appendingPathComponent(name).path, atMost: .max)
      else { return false }
      return data.starts(with: marker)
    }
  }
}
