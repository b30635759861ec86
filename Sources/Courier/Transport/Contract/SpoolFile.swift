import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A temporary file holding a body on its way, the one way Courier spools a body: the part
/// of a streamed response its reader has not caught up with (``ChunkBuffer``), a request body
/// for a transport that sends one with a length only from a file (``URLSessionTransport`` on
/// Linux), and a body a URLSession download task wrote (adopted). Written and read at
/// explicit offsets, so that a writer and a reader need no shared position; closed, and its
/// name removed, when the last reference goes.
final class SpoolFile: Sendable {
  private let descriptor: Int32
  /// The file's name, for one another API reads by path; `nil` once it has none.
  let url: URL?

  /// A new empty file in the temporary directory: unlinked at once, or, when `named`, kept
  /// under its name until ``removeName()`` or the last reference goes.
  convenience init?(named: Bool = false) {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-body-\(UUID().uuidString)")
    self.init(url, flags: O_RDWR | O_CREAT | O_EXCL, keepsName: named)
  }

  /// The file at `url`, now the spool's own: opened for reading and unlinked at once, so that
  /// nothing is left behind whatever happens to the reader.
  convenience init?(adopting url: URL) {
    self.init(url, flags: O_RDONLY, keepsName: false)
  }

  private init?(_ url: URL, flags: Int32, keepsName: Bool) {
    descriptor = open(url.path, flags, 0o600)
    guard descriptor >= 0 else { return nil }
    self.url = keepsName ? url : nil
    if !keepsName { unlink(url.path) }
  }

  deinit {
    removeName()
    close(descriptor)
  }

  /// Removes the file's name, if it has one; the bytes stay readable through the spool.
  func removeName() {
    if let url { unlink(url.path) }
  }

  /// The bytes in the file.
  var size: Int64 {
    var status = stat()
    return fstat(descriptor, &status) == 0 ? Int64(status.st_size) : 0
  }

  /// Writes all of `data` at `offset`; false on an error.
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

  /// Up to `count` bytes from `offset`, fewer at the file's end; `nil` on an error.
  func read(_ count: Int, at offset: Int64) -> Data? {
    var data = Data(count: count)
    let read = data.withUnsafeMutableBytes { buffer -> Int? in
      var done = 0
      while done < count {
        let read = pread(
          descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
        if read < 0 && errno == EINTR { continue }
        guard read >= 0 else { return nil }
        if read == 0 { break }
        done += read
      }
      return done
    }
    guard let read else { return nil }
    if read < count { data.count = read }
    return data
  }
}
