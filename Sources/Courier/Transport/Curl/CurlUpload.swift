// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation
  import Glibc

  /// A request body as libcurl reads it, a buffer at a time under the driver's lock: bytes in
  /// memory, or a file (the body's own, or a temporary one holding a streamed body, deleted
  /// when the transfer ends).
  final class CurlUpload {
    private enum Source {
      case data(Data)
      case file(FileHandle)
    }

    private let source: Source
    private var offset = 0
    private let temporary: URL?
    /// The body's length, when known (libcurl sends it as `Content-Length`).
    let length: Int64?

    init(data: Data) {
      source = .data(data)
      length = Int64(data.count)
      temporary = nil
    }

    /// A body read from `file`; `temporary` says whether it is deleted at the end.
    init(file: URL, temporary: Bool) throws(HTTPError) {
      guard let handle = FileHandle(forReadingAtPath: file.path) else {
        if temporary { try? FileManager.default.removeItem(at: file) }
        throw .transport(URLError(.fileDoesNotExist))
      }
      source = .file(handle)
      let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size])
        .flatMap { $0 as? NSNumber }?.int64Value
      length = size
      self.temporary = temporary ? file : nil
    }

    /// Copies the next bytes into `buffer`: how many (0 at the end), or `nil` when the file
    /// cannot be read.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
      switch source {
      case .data(let data):
        let count = min(buffer.count, data.count - offset)
        guard count > 0 else { return 0 }
        data.withUnsafeBytes { bytes in
          buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
        }
        offset += count
        return count
      case .file(let handle):
        // POSIX read, again after a signal (EINTR), where FileHandle would fail.
        while true {
          let count = Glibc.read(handle.fileDescriptor, buffer.baseAddress, buffer.count)
          if count >= 0 { return count }
          if errno != EINTR { return nil }
        }
      }
    }

    /// Closes the file, and deletes it if it was temporary.
    func close() {
      if case .file(let handle) = source { try? handle.close() }
      if let temporary { try? FileManager.default.removeItem(at: temporary) }
    }
  }
#endif
