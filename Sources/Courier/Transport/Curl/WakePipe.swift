// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation
  import Glibc

  /// A pipe whose read end a thread polls beside its socket, so that other threads can wake
  /// it: ``signal()`` writes a byte, ``drain()`` reads them all.
  final class WakePipe: Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(HTTPError) {
      var ends: [Int32] = [0, 0]
      guard pipe(&ends) == 0 else {
        throw .transport(.cannotLoadFromNetwork, reason: "no pipe (errno \(errno))")
      }
      for end in ends {
        _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      }
      readEnd = ends[0]
      writeEnd = ends[1]
    }

    deinit {
      close(readEnd)
      close(writeEnd)
    }

    /// Wakes the polling thread (a full pipe already will).
    func signal() {
      var byte: UInt8 = 1
      _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe after a wake.
    func drain() {
      var bytes = [UInt8](repeating: 0, count: 64)
      while read(readEnd, &bytes, bytes.count) > 0 {}
    }
  }
#endif
