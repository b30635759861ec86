import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A request body that is not held in memory whole: bytes in memory and files on disk, in
/// order, read a chunk at a time while the request is sent. File parts of a multipart form
/// and `.file` bodies travel this way, so a 1 GB upload costs a few kilobytes of memory.
struct BodySource: Sendable {
  /// One run of bytes.
  enum Segment: Sendable {
    case data(Data)
    /// The first `length` bytes of a file (its size when the request was built).
    case file(URL, length: Int64)
  }

  let segments: [Segment]

  /// The total length, sent as `Content-Length`.
  var length: Int64 {
    segments.reduce(0) { total, segment in
      switch segment {
      case .data(let data): total + Int64(data.count)
      case .file(_, let length): total + length
      }
    }
  }

  /// A file segment for `url`, sized now.
  ///
  /// - Throws: ``HTTPError/invalidRequest(reason:)`` when the file cannot be read.
  static func file(_ url: URL, describedAs what: String) throws(HTTPError) -> Segment {
    guard url.isFileURL, FileManager.default.isReadableFile(atPath: url.path),
      let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
      (attributes[.type] as? FileAttributeType) == .typeRegular,
      let size = (attributes[.size] as? NSNumber)?.int64Value
    else {
      throw .invalidRequest(reason: "\(what) is not a readable file (\(url.path))")
    }
    return .file(url, length: size)
  }

  /// Segments with adjacent in-memory runs joined; all in memory when there is no file.
  var inMemory: Data? {
    var data = Data()
    for segment in segments {
      guard case .data(let bytes) = segment else { return nil }
      data.append(bytes)
    }
    return data
  }

  /// Reads the whole body into memory, for transports that need it there.
  func readAll() throws(HTTPError) -> Data {
    var data = Data()
    try forEachChunk { data.append($0) }
    return data
  }

  /// A file holding exactly this body, for an upload task (which sends `Content-Length`;
  /// URLSession sends streamed bodies chunked): the file itself for a body that is one
  /// whole file, otherwise a temporary file written a chunk at a time, which the caller
  /// deletes.
  func file() throws(HTTPError) -> (url: URL, isTemporary: Bool) {
    if segments.count == 1, case .file(let url, let length) = segments[0],
      let size = try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber,
      size.int64Value == length
    {
      return (url, false)
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-body-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: url.path, contents: nil),
      let handle = FileHandle(forWritingAtPath: url.path)
    else { throw .transport(URLError(.cannotCreateFile)) }
    defer { try? handle.close() }
    do throws(HTTPError) {
      try forEachChunk { chunk throws(HTTPError) in
        do {
          try handle.write(contentsOf: chunk)
        } catch {
          throw .transport(URLError(.cannotWriteToFile))
        }
      }
    } catch {
      try? FileManager.default.removeItem(at: url)
      throw error
    }
    return (url, true)
  }

  /// Hands the body to `body` in chunks of at most 64 KiB.
  private func forEachChunk(_ body: (Data) throws(HTTPError) -> Void) throws(HTTPError) {
    let stream = BodyInputStream(self)
    stream.open()
    defer { stream.close() }
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBufferPointer {
        stream.read($0.baseAddress!, maxLength: $0.count)
      }
      if count < 0 {
        throw .invalidRequest(reason: "a file of the request body could not be read")
      }
      if count == 0 { return }
      try body(Data(buffer[0..<count]))
    }
  }
}

/// The `InputStream` that carries a ``BodySource`` in a `URLRequest`. The request's stream is
/// only a carrier: ``URLSessionTransport`` uploads the source from a file for each attempt,
/// and other readers make a new stream of their own from ``source``, so retries and redirects
/// that re-send the body read it from the start.
final class BodyInputStream: InputStream {
  let source: BodySource
  private var segmentIndex = 0
  private var offsetInSegment: Int64 = 0
  private var handle: FileHandle?
  private var status: Stream.Status = .notOpen
  private var failure: (any Error)?

  init(_ source: BodySource) {
    self.source = source
    super.init(data: Data())
  }

  override var streamStatus: Stream.Status { status }
  override var streamError: (any Error)? { failure }
  override var hasBytesAvailable: Bool { status == .open }

  override func open() {
    if status == .notOpen { status = .open }
  }

  override func close() {
    try? handle?.close()
    handle = nil
    status = .closed
  }

  override func getBuffer(
    _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length: UnsafeMutablePointer<Int>
  ) -> Bool {
    false
  }

  override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
    guard status == .open else { return status == .atEnd ? 0 : -1 }
    while segmentIndex < source.segments.count {
      switch source.segments[segmentIndex] {
      case .data(let data):
        let remaining = data.count - Int(offsetInSegment)
        if remaining > 0 {
          let count = min(remaining, maxLength)
          let start = data.startIndex + Int(offsetInSegment)
          data.copyBytes(to: buffer, from: start..<(start + count))
          offsetInSegment += Int64(count)
          return count
        }
      case .file(let url, let length):
        let remaining = length - offsetInSegment
        if remaining > 0 {
          do {
            if handle == nil { handle = try FileHandle(forReadingFrom: url) }
            let chunk = try handle!.read(upToCount: Int(min(remaining, Int64(maxLength)))) ?? Data()
            // A file that shrank since the request was built cannot fill its Content-Length.
            guard !chunk.isEmpty else { throw CocoaError(.fileReadUnknown) }
            chunk.copyBytes(to: buffer, count: chunk.count)
            offsetInSegment += Int64(chunk.count)
            return chunk.count
          } catch {
            failure = error
            status = .error
            return -1
          }
        }
        try? handle?.close()
        handle = nil
      }
      segmentIndex += 1
      offsetInSegment = 0
    }
    status = .atEnd
    return 0
  }
}

extension URLRequest {
  /// The request with its body in memory: a streamed body (a file, a multipart form with
  /// files) is read whole. For transports that are not URLSession, such as test stubs.
  package func withBodyInMemory() throws(HTTPError) -> URLRequest {
    guard let stream = httpBodyStream as? BodyInputStream else { return self }
    var request = self
    request.httpBody = try stream.source.readAll()
    return request
  }

  /// The source of a body that is streamed from disk, if it is.
  var bodySource: BodySource? { (httpBodyStream as? BodyInputStream)?.source }

  /// The request without its body stream, for an upload task that sends the body itself.
  var withoutBodyStream: URLRequest {
    var request = self
    request.httpBodyStream = nil
    return request
  }

  /// The length of the body, in memory or streamed.
  var bodyLength: Int64 {
    if let stream = httpBodyStream as? BodyInputStream { return stream.source.length }
    return Int64(httpBody?.count ?? 0)
  }

  /// Whether the request carries a body, in memory or streamed.
  var hasBody: Bool {
    !(httpBody?.isEmpty ?? true) || httpBodyStream != nil
  }
}
