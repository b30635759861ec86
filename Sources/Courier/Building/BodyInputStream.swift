import Foundation

/// An `InputStream` over a body read from disk, for ``HTTPClient/urlRequest(for:)``: the
/// `URLRequest` a user inspects carries the body it would send. Courier itself never sends
/// through it; transports take the ``TransportRequestBody``.
final class BodyInputStream: InputStream {
  private let reader: SegmentReader
  private var status: Stream.Status = .notOpen
  private var failure: (any Error)?

  init(_ segments: [TransportRequestBody.Segment]) {
    reader = SegmentReader(segments)
    super.init(data: Data())
  }

  override var streamStatus: Stream.Status { status }
  override var streamError: (any Error)? { failure }
  override var hasBytesAvailable: Bool { status == .open }

  override func open() {
    if status == .notOpen { status = .open }
  }

  override func close() {
    status = .closed
    reader.close()
  }

  override func getBuffer(
    _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length: UnsafeMutablePointer<Int>
  ) -> Bool {
    false
  }

  override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
    guard status == .open else { return status == .atEnd ? 0 : -1 }
    do {
      let count = try reader.read(
        into: UnsafeMutableRawBufferPointer(start: buffer, count: maxLength))
      if count == 0 { status = .atEnd }
      return count
    } catch {
      failure = error
      status = .error
      return -1
    }
  }
}
