import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An unlinked temporary file: written and read at explicit offsets, so that the writer and
/// the reader need no shared position; closed when the last reference goes.
final class SpillFile: Sendable {
  private let descriptor: Int32

  init?() {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-stream-\(UUID().uuidString)"
    ).path
    let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
    guard descriptor >= 0 else { return nil }
    unlink(path)
    self.descriptor = descriptor
  }

  deinit {
    close(descriptor)
  }

  func write(_ data: Data, at offset: Int64) -> Bool {
    data.withUnsafeBytes { buffer in
      var done = 0
      while done < buffer.count {
        let count = pwrite(
          descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return false }
        done += count
      }
      return true
    }
  }

  func read(_ count: Int, at offset: Int64) -> Data? {
    var data = Data(count: count)
    let complete = data.withUnsafeMutableBytes { buffer in
      var done = 0
      while done < count {
        let read = pread(
          descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
        if read < 0 && errno == EINTR { continue }
        guard read > 0 else { return false }
        done += read
      }
      return true
    }
    return complete ? data : nil
  }
}
