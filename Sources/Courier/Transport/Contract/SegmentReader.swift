import Foundation

/// Reads a body made of bytes in memory and file ranges, in order, 64 KiB at a time. Used
/// by one reader at a time (an iterator), so it needs no lock.
final class SegmentReader: @unchecked Sendable {
  // `@unchecked Sendable`: owned by one iterator, which is used by one task at a time.
  private let segments: [TransportRequestBody.Segment]
  private var index = 0
  private var offset: Int64 = 0
  private var handle: FileHandle?

  init(_ segments: [TransportRequestBody.Segment]) {
    self.segments = segments
  }

  deinit {
    try? handle?.close()
  }

  func next() throws(HTTPError) -> Data? {
    let chunkSize: Int64 = 64 * 1024
    while index < segments.count {
      switch segments[index] {
      case .data(let data):
        let remaining = Int64(data.count) - offset
        if remaining > 0 {
          let count = min(remaining, chunkSize)
          let start = data.startIndex + Int(offset)
          offset += count
          return data.subdata(in: start..<(start + Int(count)))
        }
      case .file(let url, let length):
        let remaining = length - offset
        if remaining > 0 {
          do {
            if handle == nil { handle = try FileHandle(forReadingFrom: url) }
            let chunk = try handle!.read(upToCount: Int(min(remaining, chunkSize))) ?? Data()
            // A file that shrank since the request was built cannot fill its length.
            guard !chunk.isEmpty else { throw CocoaError(.fileReadUnknown) }
            offset += Int64(chunk.count)
            return chunk
          } catch {
            throw .invalidRequest(reason: "a file of the request body could not be read")
          }
        }
        try? handle?.close()
        handle = nil
      }
      index += 1
      offset = 0
    }
    return nil
  }
}
