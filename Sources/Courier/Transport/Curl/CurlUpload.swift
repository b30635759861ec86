// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation
  import Glibc

  /// A request body as libcurl reads it, a buffer at a time under the driver's lock: bytes in
  /// memory, a file (the body's own, or a temporary one holding a multipart form), or a
  /// stream fed as it is produced.
  final class CurlUpload {
    private enum Source {
      case data(Data)
      case file(FileHandle)
      case stream(CurlBodyFeed)
    }

    /// What ``read(into:)`` found.
    enum Read {
      /// Bytes copied (0: the body has ended).
      case bytes(Int)
      /// Nothing to send yet: sending pauses until the feed says bytes came.
      case waits
      /// The body could not be read.
      case failed(HTTPError)
    }

    private let source: Source
    private var offset = 0
    private let temporary: URL?
    /// The body's length, when known (libcurl sends it as `Content-Length`, and an HTTP/1.1
    /// body of unknown length chunked).
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

    /// A body sent as `feed` is given it.
    init(feed: CurlBodyFeed, length: Int64?) {
      source = .stream(feed)
      self.length = length
      temporary = nil
    }

    /// The feed of a streamed body.
    var feed: CurlBodyFeed? {
      if case .stream(let feed) = source { feed } else { nil }
    }

    /// Copies the next bytes into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Read {
      switch source {
      case .data(let data):
        let count = min(buffer.count, data.count - offset)
        guard count > 0 else { return .bytes(0) }
        data.withUnsafeBytes { bytes in
          buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
        }
        offset += count
        return .bytes(count)
      case .file(let handle):
        // POSIX read, again after a signal (EINTR), where FileHandle would fail.
        while true {
          let count = Glibc.read(handle.fileDescriptor, buffer.baseAddress, buffer.count)
          if count >= 0 { return .bytes(count) }
          if errno != EINTR {
            return .failed(.invalidRequest(reason: "a file of the request body could not be read"))
          }
        }
      case .stream(let feed):
        return feed.read(into: buffer)
      }
    }

    /// Closes the file (deleting it if it was temporary), or stops reading the stream.
    func close() {
      switch source {
      case .data: break
      case .file(let handle): try? handle.close()
      case .stream(let feed): feed.close()
      }
      if let temporary { try? FileManager.default.removeItem(at: temporary) }
    }
  }
#endif
