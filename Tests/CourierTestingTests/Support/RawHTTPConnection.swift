import CourierTestSupport
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A plain TCP client for what URLSession cannot show: exact bytes on the wire, chunked
/// request bodies, malformed requests, pipelining.
///
/// Its calls block, so they run on a thread of their own, never on a cooperative thread.
enum RawHTTPConnection {
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// Connects to 127.0.0.1:`port`, sends `request` and reads until the server closes the
  /// connection. Gives up after 2 minutes without data: a guard against a server that hangs,
  /// far past what any load makes a loopback answer take. (It was 10 s, and all six raw
  /// exchanges of a run failed together at 10 s on a 2-core machine with a load average of 8.)
  static func exchange(port: Int, sending request: String) async throws -> String {
    try await onOwnThread {
      let fd = try openConnection(port: port)
      defer { close(fd) }
      try sendAll(fd, Array(request.utf8))
      return String(decoding: try readToEnd(fd), as: UTF8.self)
    }
  }

  /// Like `exchange(port:sending:)` in steps: after each step but the last, waits until
  /// what the server has sent ends with an empty line (a complete head, e.g.
  /// `100 Continue`); after the last, reads until the server closes the connection.
  static func converse(port: Int, _ steps: [String]) async throws -> String {
    try await onOwnThread {
      let fd = try openConnection(port: port)
      defer { close(fd) }
      var received: [UInt8] = []
      for (index, step) in steps.enumerated() {
        try sendAll(fd, Array(step.utf8))
        if index == steps.count - 1 {
          received += try readToEnd(fd)
        } else {
          while !received.ends(with: Array("\r\n\r\n".utf8)) {
            received += try readSome(fd)
          }
        }
      }
      return String(decoding: received, as: UTF8.self)
    }
  }

  #if canImport(Darwin)
    private static let noSignal: Int32 = 0
  #else
    /// A send to a closed server fails instead of raising SIGPIPE.
    private static let noSignal = Int32(MSG_NOSIGNAL)
  #endif

  /// A TCP connection to 127.0.0.1:`port`, its reads timing out after two minutes.
  static func openConnection(port: Int) throws -> Int32 {
    #if canImport(Darwin)
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #else
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
    var timeout = timeval(tv_sec: 120, tv_usec: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      throw Failure(description: "connect: errno \(errno)")
    }
    return fd
  }

  private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, noSignal) }
      guard sent > 0 else { throw Failure(description: "send: errno \(errno)") }
      offset += sent
    }
  }

  private static func readToEnd(_ fd: Int32) throws -> [UInt8] {
    var received: [UInt8] = []
    while true {
      let bytes = try readSome(fd)
      if bytes.isEmpty { return received }
      received += bytes
    }
  }

  /// What has arrived, waiting for something; empty at the end of the stream.
  private static func readSome(_ fd: Int32) throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    guard count >= 0 else { throw Failure(description: "recv: errno \(errno)") }
    return Array(buffer[..<count])
  }
}

extension Array where Element == UInt8 {
  fileprivate func ends(with suffix: [UInt8]) -> Bool {
    count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
  }
}
