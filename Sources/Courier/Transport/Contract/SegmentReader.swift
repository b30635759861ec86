import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a body made of bytes in memory and files, in order, into the reader's buffer: the
/// one reading of such a body (a multipart form with file parts, a file), whether libcurl's
/// read callback pulls it, a URLSession body stream, or ``TransportRequestBody/Chunks``.
/// Nothing is read ahead: a file is read only as far as the buffer asks, one file open at a
/// time.
///
/// A file must keep the size it had when the body was built, since that size went into the
/// `Content-Length`: it is checked when the file is opened and again when its bytes have all
/// been read, and a file that shrank or grew ends the body with
/// `HTTPError.transport(URLError(.requestBodyStreamExhausted))` rather than sending a body
/// of another length.
///
/// Used by one reader at a time (an iterator, a transfer), so it needs no lock.
final class SegmentReader: @unchecked Sendable {
  // `@unchecked Sendable`: owned by one iterator or transfer, used by one thread at a time.
  private let segments: [TransportRequestBody.Segment]
  private var index = 0
  /// How far into the current segment.
  private var offset: Int64 = 0
  /// The bytes not yet read, all segments together.
  private var remaining: Int64
  /// The current file segment's descriptor, or -1.
  private var descriptor: Int32 = -1
  /// The last bytes of the current file segment read so far (at its start, the line break
  /// before it), where a multipart delimiter may have begun (see ``scan(_:of:for:)``).
  private var window = Data()

  init(_ segments: [TransportRequestBody.Segment]) {
    self.segments = segments
    remaining = TransportRequestBody.length(of: segments)
  }

  deinit {
    close()
  }

  /// Starts again from the body's first byte (libcurl sending it again on a fresh connection).
  func rewind() {
    close()
    index = 0
    offset = 0
    remaining = TransportRequestBody.length(of: segments)
    window = Data()
  }

  /// At most 64 KiB of the body's next bytes, or `nil` at its end.
  func next() throws(HTTPError) -> Data? {
    guard remaining > 0 else { return nil }
    var chunk = Data(count: Int(min(remaining, 64 * 1024)))
    var failure: HTTPError?
    let count = chunk.withUnsafeMutableBytes { buffer in
      do throws(HTTPError) {
        return try read(into: buffer)
      } catch {
        failure = error
        return 0
      }
    }
    if let failure { throw failure }
    guard count > 0 else { return nil }
    if count < chunk.count { chunk.count = count }
    return chunk
  }

  /// Copies the body's next bytes into `buffer`, filling it unless the body ends first;
  /// returns how many (0 at the end).
  func read(into buffer: UnsafeMutableRawBufferPointer) throws(HTTPError) -> Int {
    var filled = 0
    while filled < buffer.count, index < segments.count {
      let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
      let count: Int
      switch segments[index] {
      case .data(let data):
        count = Int(min(Int64(rest.count), Int64(data.count) - offset))
        if count > 0 {
          let start = Int(offset)
          data.withUnsafeBytes { bytes in
            rest.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]))
          }
        }
      case .file(let url, let length, let delimiter):
        count = try readFile(url, length: length, into: rest)
        if let delimiter, count > 0 {
          try scan(UnsafeRawBufferPointer(rebasing: rest[0..<count]), of: url, for: delimiter)
        }
      }
      guard count > 0 else {
        index += 1
        offset = 0
        continue
      }
      offset += Int64(count)
      remaining -= Int64(count)
      filled += count
    }
    return filled
  }

  /// Closes the file being read, if any.
  func close() {
    if descriptor >= 0 { _ = systemClose(descriptor) }
    descriptor = -1
  }

  /// The next bytes of the file segment at `offset`: opened (and its size checked) first,
  /// its size checked again once its `length` bytes are read, then closed (0: its end).
  private func readFile(_ url: URL, length: Int64, into buffer: UnsafeMutableRawBufferPointer)
    throws(HTTPError) -> Int
  {
    if descriptor < 0 {
      // Non-blocking, so that a path turned into a FIFO since the body was built cannot
      // hang the open; a regular file reads the same either way.
      let opened = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
      guard opened >= 0 else { throw Self.unreadable(url, String(cString: strerror(errno))) }
      descriptor = opened
      window = Data("\r\n".utf8)
      try checkSize(of: url, length: length)
    }
    let left = length - offset
    guard left > 0 else {
      try checkSize(of: url, length: length)
      close()
      return 0
    }
    while true {
      let count = systemRead(descriptor, buffer.baseAddress, Int(min(Int64(buffer.count), left)))
      if count > 0 { return count }
      // The file ended before `length` bytes: it shrank.
      if count == 0 { throw Self.changed(url, length: length, now: size() ?? offset) }
      if errno != EINTR { throw Self.unreadable(url, String(cString: strerror(errno))) }
    }
  }

  /// Throws when the file's bytes, after the line break that precedes every part's content,
  /// hold a multipart form's `delimiter`: the server would end the part there and read the
  /// rest of the file as parts (a field of the file's text). A file is not read when the
  /// form is built, so it is checked here, as it is sent; only a caller's own boundary can
  /// be met.
  private func scan(_ bytes: UnsafeRawBufferPointer, of url: URL, for delimiter: Data)
    throws(HTTPError)
  {
    window.append(contentsOf: bytes)
    if window.range(of: delimiter) != nil {
      let marker = String(decoding: delimiter.dropFirst(2), as: UTF8.self)
      throw .transport(
        .requestBodyStreamExhausted,
        reason: "the file \(url.path) holds the multipart boundary delimiter '\(marker)' "
          + "after a line break, so the form was not sent whole (the server would read the "
          + "file's text as parts of the form); use another boundary (the random default "
          + "never meets this)")
    }
    window = Data(window.suffix(delimiter.count - 1))
  }

  /// Throws unless the open file is still a regular file of `length` bytes.
  private func checkSize(of url: URL, length: Int64) throws(HTTPError) {
    guard let size = size() else { throw Self.unreadable(url, "it is no longer a regular file") }
    if size != length { throw Self.changed(url, length: length, now: size) }
  }

  /// The open file's size, or `nil` when it is no longer a regular file.
  private func size() -> Int64? {
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    return Int64(info.st_size)
  }

  private static func changed(_ url: URL, length: Int64, now size: Int64) -> HTTPError {
    .transport(
      .requestBodyStreamExhausted,
      reason: "the file \(url.path) changed size after the request's length was computed "
        + "(\(length) bytes then, \(size) now), so the body was not sent whole")
  }

  private static func unreadable(_ url: URL, _ why: String) -> HTTPError {
    let reason = "the file \(url.path) of the request body could not be read (\(why))"
    return .transport(.cannotOpenFile, reason: reason)
  }
}

// The C functions, under names that the methods above do not shadow.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int)
  -> Int
{
  read(descriptor, buffer, count)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
  close(descriptor)
}
