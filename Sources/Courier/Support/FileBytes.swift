import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whole-file reads and writes with POSIX calls that go on after a signal (`EINTR`), where
/// `FileHandle` and `Data(contentsOf:)` may fail or trap when a child process exits.
enum FileBytes {
  /// Writes all of `bytes` to `descriptor`; false on an error other than `EINTR`.
  static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
      if count > 0 {
        offset += count
      } else if count < 0 && errno != EINTR {
        return false
      }
    }
    return true
  }

  /// The size of the regular file at `path`, a symbolic link followed to its target (a
  /// file reached through a link is sent as its target, whatever the link's own size); `nil`
  /// when there is none, or it is a directory, a FIFO or a device.
  static func regularFileSize(_ path: String) -> Int64? {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    return Int64(info.st_size)
  }

  /// What reading a file found.
  enum Read: Equatable {
    /// The whole content of a regular file.
    case contents(Data)
    /// No file there.
    case missing
    /// Something that is not a regular file within the limit: a link, a FIFO, a device, a
    /// directory, more bytes than asked for. Never one's own file; safe to delete.
    case foreign
    /// A file that cannot be read now, though it may be one's own: no permission (on Apple
    /// platforms, a file under data protection while the device is locked), too many open
    /// files, a failing read. To be left alone.
    case unavailable
  }

  /// Reads the regular file at `path` whole, if it holds at most `limit` bytes: opened
  /// without following a link (unless `followingLinks`: a file the user names, such as a
  /// key mounted through a link, is read at its target), and without waiting, so that a
  /// FIFO cannot hang the read nor `/dev/zero` fill memory.
  static func load(_ path: String, atMost limit: Int, followingLinks: Bool = false) -> Read {
    let links = followingLinks ? 0 : O_NOFOLLOW
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | links | O_CLOEXEC)
    guard descriptor >= 0 else { return openFailure(errno) }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return .unavailable }
    guard (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= limit else { return .foreign }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count > 0 {
        data.append(contentsOf: buffer[0..<count])
        guard data.count <= limit else { return .foreign }  // grown since `fstat`
      } else if count == 0 {
        return .contents(data)
      } else if errno != EINTR {
        return .unavailable
      }
    }
  }

  /// What an `open` that failed with `code` found: nothing, a link (`ELOOP`, as
  /// `O_NOFOLLOW` refuses one), or a file it may not open now.
  static func openFailure(_ code: Int32) -> Read {
    switch code {
    case ENOENT, ENOTDIR: .missing
    case ELOOP: .foreign
    default: .unavailable
    }
  }

  /// Writes `parts` one after another to a new file beside `path`, then renames it over
  /// `path` in one step: a reader sees the old file or the whole new one, never a part.
  /// False, leaving nothing behind, when any step fails.
  static func writeAtomically(_ parts: [Data], to path: String) -> Bool {
    let url = URL(fileURLWithPath: path)
    let temporary = url.deletingLastPathComponent()
      .appendingPathComponent(".tmp-\(UUID().uuidString)").path
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    guard descriptor >= 0 else { return false }
    var written = true
    for part in parts where written {
      written = part.withUnsafeBytes { writeAll($0, to: descriptor) }
    }
    close(descriptor)
    guard written, rename(temporary, path) == 0 else {
      unlink(temporary)
      return false
    }
    return true
  }

  /// Appends the content of the file at `source` to the file at `destination` (created if
  /// need be), 64 KiB at a time; false when any step fails.
  static func append(_ source: String, to destination: String) -> Bool {
    let input = open(source, O_RDONLY)
    guard input >= 0 else { return false }
    defer { close(input) }
    let output = open(destination, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    guard output >= 0 else { return false }
    defer { close(output) }
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
      if count == 0 { return true }
      if count < 0 {
        if errno == EINTR { continue }
        return false
      }
      guard
        buffer.withUnsafeBytes({
          writeAll(UnsafeRawBufferPointer(rebasing: $0[0..<count]), to: output)
        })
      else { return false }
    }
  }
}
