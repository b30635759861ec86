// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation
  import Glibc

  /// A request body as libcurl reads it, a buffer at a time under the driver's lock: bytes in
  /// memory; bytes and files (a file, a multipart form with file parts), each file read
  /// straight into libcurl's buffer as it asks; or a stream fed as it is produced.
  final class CurlUpload {
    private enum Source {
      case data(Data)
      case segments(SegmentReader)
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
    /// The body's length, when known (libcurl sends it as `Content-Length`, and an HTTP/1.1
    /// body of unknown length chunked).
    let length: Int64?

    init(_ body: TransportRequestBody) {
      length = body.length
      if let data = body.data {
        source = .data(data)
      } else if let segments = body.segments {
        source = .segments(SegmentReader(segments))
      } else {
        source = .stream(CurlBodyFeed())
      }
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
      case .segments(let reader):
        do throws(HTTPError) {
          return .bytes(try reader.read(into: buffer))
        } catch {
          return .failed(error)
        }
      case .stream(let feed):
        return feed.read(into: buffer)
      }
    }

    /// Whether ``rewind()`` can start the body again: bytes in memory and files can, a
    /// stream cannot.
    var rewinds: Bool {
      if case .stream = source { false } else { true }
    }

    /// Starts the body again from its first byte; false for a stream.
    func rewind() -> Bool {
      switch source {
      case .data: offset = 0
      case .segments(let reader): reader.rewind()
      case .stream: return false
      }
      return true
    }

    /// Closes the file being read, or stops reading the stream.
    func close() {
      switch source {
      case .data: break
      case .segments(let reader): reader.close()
      case .stream(let feed): feed.close()
      }
    }
  }
#endif
