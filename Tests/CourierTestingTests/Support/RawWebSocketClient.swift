import Courier
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A WebSocket client reduced to blocking calls on a plain TCP socket, for one thread: it
/// sends masked frames (or any bytes) and reads the server's frames as they come.
struct RawWebSocketClient {
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  private let fd: Int32
  private var pending: [UInt8] = []
  private var reader = WebSocketFrameReader(maximumPayload: 16 << 20, readsMaskedFrames: false)

  #if canImport(Darwin)
    private static let noSignal: Int32 = 0
  #else
    private static let noSignal = Int32(MSG_NOSIGNAL)
  #endif

  /// Connects to 127.0.0.1:`port`.
  init(port: Int) throws {
    fd = try RawHTTPConnection.openConnection(port: port)
  }

  /// Sends `request` and `then`, and returns the answer's head (up to the empty line).
  mutating func handshake(_ request: String, then: [UInt8] = []) throws -> String {
    try sendBytes(Array(request.utf8) + then)
    let end = Array("\r\n\r\n".utf8)
    while true {
      if let range = pending.firstRange(of: end) {
        defer { pending.removeFirst(range.upperBound) }
        return String(decoding: pending[..<range.lowerBound], as: UTF8.self)
      }
      let more = try receive()
      guard !more.isEmpty else { throw Failure(description: "the head did not end") }
      pending += more
    }
  }

  /// `frame` masked, as a client sends it.
  func masked(_ frame: WebSocketFrame) -> [UInt8] {
    frame.encoded(mask: 0x1234_5678)
  }

  /// Sends `frame`, masked.
  func sendFrame(_ frame: WebSocketFrame) throws {
    try sendBytes(masked(frame))
  }

  func sendBytes(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, Self.noSignal)
      }
      guard sent > 0 else { throw Failure(description: "send: errno \(errno)") }
      offset += sent
    }
  }

  /// Sends what of `bytes` the socket takes: 0 when a send timeout passed first.
  func sendSome(_ bytes: ArraySlice<UInt8>) throws -> Int {
    let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Self.noSignal) }
    if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
    guard sent > 0 else { throw Failure(description: "send: errno \(errno)") }
    return sent
  }

  /// Makes a send give up after `milliseconds` without progress; 0 for never.
  func setSendTimeout(milliseconds: Int) {
    var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: .init(milliseconds % 1000 * 1000))
    _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  /// The server's next frame, or nil at the end of the stream.
  mutating func readFrame() throws -> WebSocketFrame? {
    reader.append(pending)
    pending = []
    while true {
      if let frame = try reader.next() { return frame }
      let more = try receive()
      if more.isEmpty { return nil }
      reader.append(more)
    }
  }

  /// Everything until the server closes the connection.
  mutating func readToEnd() throws -> [UInt8] {
    var bytes = pending
    pending = []
    while true {
      let more = try receive()
      if more.isEmpty { return bytes }
      bytes += more
    }
  }

  func disconnect() {
    _ = close(fd)
  }

  private func receive() throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    guard count >= 0 else { throw Failure(description: "recv: errno \(errno)") }
    return Array(buffer[..<count])
  }
}
