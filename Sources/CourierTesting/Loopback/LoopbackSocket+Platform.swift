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
/// Calls that can block (`waitReadable`, `receive`, `sendAll`) belong on dedicated threads
/// or, for short sends, on the task answering a request. Listening sockets do not block.
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
    setNonBlocking(fd, true)  // one thread accepts for every server (LoopbackAcceptor)
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
    setNonBlocking(fd, true)  // one thread accepts for every server (LoopbackAcceptor)
    return fd
  }

  /// A port on 127.0.0.1 that refuses connections: bound by a socket this process holds
  /// open and never listens on. A port closed again could be taken meanwhile by another
  /// test's server, and a "refused" connection would reach it.
  static func refusingPort() throws -> Int {
    try refusing.get()
  }

  /// The socket behind ``refusingPort()``, bound once and held until the process ends.
  private static let refusing = Result { try bindLoopback().port }

  /// What accepting on a listening socket that does not block gave.
  enum Accepted {
    /// A connection, its socket blocking and sending without delay.
    case connection(Int32)
    /// No connection is waiting.
    case noneWaiting
    /// The listener failed (or was shut down): it accepts nothing more.
    case failed
  }

  /// The next connection waiting on `listener`, a socket made by ``makeListener()`` (or its
  /// Unix domain form) that does not block.
  static func acceptConnection(_ listener: Int32) -> Accepted {
    while true {
      let fd = accept(listener, nil, nil)
      if fd >= 0 {
        var one: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        // Responses go out in one or few writes; do not let Nagle hold them back.
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, size)
        #if canImport(Darwin)
          _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, size)
          // Darwin's accepted sockets inherit the listener's O_NONBLOCK (Linux's do not);
          // a connection's thread blocks on its socket.
          setNonBlocking(fd, false)
        #endif
        return .connection(fd)
      }
      switch errno {
      case EINTR, ECONNABORTED: continue
      case EAGAIN, EWOULDBLOCK: return .noneWaiting
      default: return .failed
      }
    }
  }

  /// Waits until any of `fds` is readable or hung up, and returns those that are.
  static func waitReadable(_ fds: [Int32]) -> [Int32] {
    var entries = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    while true {
      let ready = poll(&entries, nfds_t(entries.count), -1)
      if ready >= 0 { return entries.filter { $0.revents != 0 }.map(\.fd) }
      if errno != EINTR { return fds }  // let the callers' next calls report the error
    }
  }

  /// A pipe for waking a thread that waits in ``waitReadable(_:)``: neither end blocks.
  static func makeWakePipe() throws(LoopbackError) -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw failure("pipe") }
    for fd in fds {
      setNonBlocking(fd, true)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    return (fds[0], fds[1])
  }

  /// Makes the read end of a wake pipe readable. (A full pipe is readable already.)
  static func wake(_ pipe: Int32) {
    var byte: UInt8 = 1
    _ = write(pipe, &byte, 1)
  }

  /// Reads every byte waiting in the read end of a wake pipe.
  static func drain(_ pipe: Int32) {
    var bytes = [UInt8](repeating: 0, count: 256)
    while read(pipe, &bytes, bytes.count) > 0 {}
  }

  /// Sets or clears `O_NONBLOCK` on `fd`.
  static func setNonBlocking(_ fd: Int32, _ nonBlocking: Bool) {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, nonBlocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK)
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
