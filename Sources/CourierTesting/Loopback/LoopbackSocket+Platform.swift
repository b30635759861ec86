import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The few POSIX socket calls the loopback server makes, on raw file descriptors.
///
/// Where Darwin's sockets differ from Linux's (`#if canImport(Darwin)` below): `SOCK_STREAM`
/// is a plain `Int32` there, there is no `MSG_NOSIGNAL` (each socket gets `SO_NOSIGPIPE`
/// instead, as Apple's `setsockopt(2)` man page describes), and `sockaddr_in` has a length
/// field to fill in.
///
/// Calls that can block (`acceptConnection`, `receive`, `sendAll`) belong on dedicated
/// threads or, for short sends, on the task answering a request.
enum LoopbackSocket {
  #if canImport(Darwin)
    private static let streamType = SOCK_STREAM
    /// Darwin has no `MSG_NOSIGNAL`; `SO_NOSIGPIPE` is set on each socket instead.
    private static let sendFlags: Int32 = 0
  #else
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    /// A send to a closed peer fails with `EPIPE` instead of raising `SIGPIPE`.
    private static let sendFlags = Int32(MSG_NOSIGNAL)
  #endif

  /// A listening TCP socket on 127.0.0.1 at a port the OS picks, and that port.
  static func makeListener() throws -> (socket: Int32, port: Int) {
    let (fd, port) = try bindLoopback()
    guard listen(fd, 1024) == 0 else {
      let error = failure("listen")
      _ = close(fd)
      throw error
    }
    return (fd, port)
  }

  /// A listening Unix domain socket at `path`.
  static func makeListener(unixSocketPath path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, streamType, 0)
    guard fd >= 0 else { throw failure("socket") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else {
      _ = close(fd)
      throw LoopbackError("the socket path \(path) is longer than \(capacity - 1) bytes")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    #if canImport(Darwin)
      address.sun_len = UInt8(MemoryLayout<sockaddr_un>.size)
    #endif
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
      }
    }
    guard bound, listen(fd, 1024) == 0 else {
      let error = failure(bound ? "listen" : "bind")
      _ = close(fd)
      throw error
    }
    return fd
  }

  /// A port on 127.0.0.1 that nothing listens on: bound, read and closed again.
  static func unusedPort() throws -> Int {
    let (fd, port) = try bindLoopback()
    _ = close(fd)
    return port
  }

  /// The next connection on `listener`, or nil once the listener is shut down or fails.
  static func acceptConnection(_ listener: Int32) -> Int32? {
    while true {
      let fd = accept(listener, nil, nil)
      if fd >= 0 {
        var one: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        // Responses go out in one or few writes; do not let Nagle hold them back.
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, size)
        #if canImport(Darwin)
          _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, size)
        #endif
        return fd
      }
      if errno != EINTR && errno != ECONNABORTED { return nil }
    }
  }

  /// Waits up to `milliseconds` for `fd` to be readable or hung up; false on timeout.
  static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
      let ready = poll(&entry, 1, milliseconds)
      if ready >= 0 { return ready > 0 }
      if errno != EINTR { return true }  // let the caller's next call report the error
    }
  }

  /// Reads what has arrived into `buffer`: the byte count, 0 at end of stream, or -1 on error.
  static func receive(_ fd: Int32, into buffer: inout [UInt8]) -> Int {
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count >= 0 || errno != EINTR { return count }
    }
  }

  /// Sends every byte of `data`, blocking while the peer's window is full.
  static func sendAll(_ fd: Int32, _ data: Data) throws {
    try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
      guard let base = bytes.baseAddress else { return }
      var offset = 0
      while offset < bytes.count {
        let sent = send(fd, base + offset, bytes.count - offset, sendFlags)
        if sent < 0 {
          if errno == EINTR { continue }
          throw failure("send")
        }
        offset += sent
      }
    }
  }

  /// Shuts down reading and writing (`wholly`) or just writing, waking any thread
  /// blocked on `fd`. The descriptor stays open.
  static func shutDown(_ fd: Int32, wholly: Bool) {
    _ = shutdown(fd, wholly ? Int32(SHUT_RDWR) : Int32(SHUT_WR))
  }

  /// Closes `fd`.
  static func release(_ fd: Int32) {
    _ = close(fd)
  }

  private static func bindLoopback() throws -> (socket: Int32, port: Int) {
    let fd = socket(AF_INET, streamType, 0)
    guard fd >= 0 else { throw failure("socket") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian  // 127.0.0.1, network order
    #if canImport(Darwin)
      address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    #endif
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else {
      let error = failure("bind")
      _ = close(fd)
      throw error
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
  }

  private static func failure(_ call: String) -> LoopbackError {
    let code = errno
    return LoopbackError("\(call) failed: \(String(cString: strerror(code))) (errno \(code))")
  }
}
