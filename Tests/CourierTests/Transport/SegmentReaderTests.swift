import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The one reading of a body of bytes and files, as the transports pull it.
@Suite("Reading a body of bytes and files")
struct SegmentReaderTests {
  /// A file of `count` bytes of a pattern in a directory of its own; remove the directory.
  private func file(_ count: Int) throws -> (url: URL, bytes: Data) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
    let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) })
    let url = directory.appendingPathComponent("part.bin")
    try bytes.write(to: url)
    return (url, bytes)
  }

  private func remove(_ url: URL) {
    try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
  }

  @Test("chunks of at most 64 KiB, bytes and file in order, the file read only as far as asked")
  func chunks() throws {
    let (url, bytes) = try file(200 * 1024 + 3)
    defer { remove(url) }
    let head = Data("head".utf8)
    let reader = SegmentReader([.data(head), .file(url, length: Int64(bytes.count)), .data(head)])
    var chunks: [Data] = []
    while let chunk = try reader.next() { chunks.append(chunk) }
    #expect(chunks.allSatisfy { $0.count <= 64 * 1024 })
    #expect(chunks.reduce(Data(), +) == head + bytes + head)

    // Into a buffer as libcurl's read callback asks: filled across the parts.
    let again = SegmentReader([.data(head), .file(url, length: Int64(bytes.count)), .data(head)])
    var buffer = [UInt8](repeating: 0, count: 1000)
    let count = try buffer.withUnsafeMutableBytes { try again.read(into: $0) }
    #expect(count == 1000)
    #expect(Data(buffer) == (head + bytes).prefix(1000))
  }

  @Test("a file that grows while it is read fails once its announced length has been read")
  func grows() throws {
    let (url, bytes) = try file(100 * 1024)
    defer { remove(url) }
    let reader = SegmentReader([.file(url, length: Int64(bytes.count)), .data(Data("end".utf8))])
    #expect(try reader.next()?.count == 64 * 1024)
    let handle = try FileHandle(forWritingTo: url)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("more".utf8))
    try handle.close()
    let error = #expect(throws: HTTPError.self) {
      while try reader.next() != nil {}
    }
    guard case .transport(let failure) = error else {
      Issue.record("expected a transport error, got \(String(describing: error))")
      return
    }
    #expect(failure.code == .requestBodyStreamExhausted)
    #expect(String(describing: error!).contains("(102400 bytes then, 102404 now)"))
  }

  @Test("a file that shrinks while it is read fails where it ends")
  func shrinks() throws {
    let (url, bytes) = try file(100 * 1024)
    defer { remove(url) }
    let reader = SegmentReader([.file(url, length: Int64(bytes.count))])
    #expect(try reader.next()?.count == 64 * 1024)
    try FileHandle(forWritingTo: url).truncate(atOffset: 70 * 1024)
    let error = #expect(throws: HTTPError.self) {
      while try reader.next() != nil {}
    }
    #expect(String(describing: error!).contains("(102400 bytes then, 71680 now)"))
  }
}
