// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation
  import Glibc

  /// The driver's side of byte channels, always under its lock: their sockets in the driver's
  /// epoll set once connected, those libcurl makes while connecting, and their turns.
  extension CurlDriver {
    func watch(_ fd: Int32, reading: Bool, writing: Bool) {
      _ = courier_curl_loop_watch(loop, fd, reading ? 1 : 0, writing ? 1 : 0)
    }

    /// libcurl made `fd` for connecting `socket` (in a libcurl call, under the lock).
    func made(_ fd: Int32, for socket: CurlByteChannel) {
      made[fd] = socket
      socket.link.sockets.insert(fd)
    }

    /// The sockets libcurl made for a connection are no longer watched for closing: it has
    /// connected or ended.
    func connected(_ sockets: Set<Int32>) {
      for fd in sockets { made[fd] = nil }
    }

    /// Ends `socket`'s part in the driver: its socket unwatched, its handle out of the multi
    /// handle (which closes a connect-only connection) and freed.
    func letGo(_ socket: CurlByteChannel, easy: UnsafeMutableRawPointer?, fd: Int32) {
      if fd >= 0, watched[fd] === socket {
        watched[fd] = nil
        watch(fd, reading: false, writing: false)
      }
      if let easy {
        connecting[easy] = nil
        _ = courier_curl_multi_remove_handle(sockets, easy)
        shares.cleanUp(easy)
      }
      channels -= 1
    }

    /// How many byte channels use each of the connection caches (for tests; takes the lock).
    func sharesInUse() -> [Int] {
      lock.lock()
      defer {
        lock.unlock()
        courier_curl_loop_wake(loop)
      }
      return shares.inUse
    }

    /// libcurl closes a channel's socket (the connection let go, or found dead
    /// among libcurl's idle connections when another connected): an open one ends.
    func socketClosed(_ fd: Int32) {
      if let socket = made.removeValue(forKey: fd) { socket.link.sockets.remove(fd) }
      if let socket = watched.removeValue(forKey: fd) {
        watch(fd, reading: false, writing: false)
        socket.link.socketLost()
        runnable.append(socket)
      }
      close(fd)
    }
  }
#endif
