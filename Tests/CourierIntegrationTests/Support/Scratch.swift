import CourierTestSupport
import CourierTesting
import Foundation

/// A fresh directory for one test's files, so a test can prove exactly what it left behind.
struct ScratchDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
  }

  /// A path inside the directory.
  func file(_ name: String) -> URL { url.appendingPathComponent(name) }

  /// The names of everything in the directory, hidden files included, sorted.
  var contents: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
  }

  func remove() {
    try? FileManager.default.removeItem(at: url)
  }
}

extension Data {
  /// Writes the bytes to `url` on a thread of its own, for a test's files of megabytes:
  /// Foundation syncs every file it writes (fsync), which holds the thread until the disk has
  /// it, long with a build writing beside the run, and the cooperative pool has as few
  /// threads as cores.
  func write(offPoolTo url: URL) async throws {
    try await onOwnThread { try self.write(to: url) }
  }
}

/// `count` bytes of a pattern that differs at every offset of a 251-byte cycle, so a byte out
/// of place shows.
///
/// Built by copying whole cycles, so that megabytes of it cost next to nothing in a debug
/// build (a byte-by-byte loop would hold one of the few concurrency threads for seconds).
func patternBytes(_ count: Int, from offset: Int = 0) -> Data {
  let cycle = Data((0..<251).map { UInt8($0) })
  var data = Data(capacity: count)
  var position = offset % 251
  while data.count < count {
    let take = min(251 - position, count - data.count)
    data.append(cycle[position..<(position + take)])
    position = 0
  }
  return data
}

extension LoopbackResponse {
  /// Sends `size` bytes of ``patternBytes(_:from:)`` with a `Content-Length`, in writes of
  /// whole pattern cycles (one buffer serves them all).
  func sendPattern(size: Int) async throws {
    let block = patternBytes(251 * 1024)
    try await writeHead(contentLength: size)
    var sent = 0
    while sent < size {
      let count = min(block.count, size - sent)
      try await write(block.prefix(count))
      sent += count
    }
    try await finish()
  }
}
