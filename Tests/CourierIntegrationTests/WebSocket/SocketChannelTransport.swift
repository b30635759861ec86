// POSIX sockets as Linux spells them (Glibc).
#if canImport(Glibc)
  import Courier
  import CourierTestSupport
  import Foundation
  import Glibc

  /// A transport that does one thing: connects a plain TCP socket to an IPv4 host (the
  /// loopback server). It sends no requests and has no WebSocket code: the client runs the
  /// whole protocol on its bytes. What a third-party transport needs for WebSockets, and no
  /// more.
  struct SocketChannelTransport: HTTPTransport {
    func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
      -> TransportResponse
    {
      throw .invalidRequest(reason: "SocketChannelTransport sends no requests: it only connects")
    }

    func connect(to url: URL, options: TransportOptions) async throws(HTTPError)
      -> any TransportByteChannel
    {
      guard let scheme = url.scheme?.lowercased(), ["http", "ws"].contains(scheme),
        let host = url.host
      else {
        throw .invalidRequest(
          reason: "SocketChannelTransport connects to http or ws URLs, not \(Redacted(url))")
      }
      guard !Task.isCancelled else { throw .cancelled }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = in_port_t(UInt16(url.port ?? 80).bigEndian)
      guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
        throw .invalidRequest(reason: "SocketChannelTransport connects to IPv4 addresses only")
      }
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      guard fd >= 0 else { throw .transport(URLError(.cannotConnectToHost)) }
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard connected == 0 else {
        Glibc.close(fd)
        throw .transport(URLError(.cannotConnectToHost))
      }
      return SocketChannel(fd: fd)
    }
  }

  /// A URL's scheme and host, for an error message.
  private struct Redacted: CustomStringConvertible {
    let url: URL
    init(_ url: URL) { self.url = url }
    var description: String { "\(url.scheme ?? "no scheme")://\(url.host ?? "")" }
  }

  /// A connected socket as a byte channel. Each read and write is a blocking call on a
  /// thread of its own (a test's few connections afford it), so that no task of the
  /// cooperative pool waits in the kernel; the socket is read only while a read waits.
  /// ``close()`` shuts the socket down, which wakes a call blocked on it; the descriptor is
  /// closed once no call uses it.
  final class SocketChannel: TransportByteChannel {
    let fd: Int32
    private let closed = Locked(false)

    init(fd: Int32) {
      self.fd = fd
    }

    deinit {
      Glibc.close(fd)
    }

    func read() async throws(HTTPError) -> Data? {
      let result = await onOwnThread { [self] () -> Result<Data?, HTTPError> in
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
          if closed.withLock({ $0 }) { return .failure(.cancelled) }
          let count = recv(fd, &buffer, buffer.count, 0)
          if closed.withLock({ $0 }) { return .failure(.cancelled) }
          if count > 0 { return .success(Data(buffer[..<count])) }
          if count == 0 { return .success(nil) }
          if errno != EINTR { return .failure(.transport(URLError(.networkConnectionLost))) }
        }
      }
      return try result.get()
    }

    func write(_ bytes: Data) async throws(HTTPError) {
      let result = await onOwnThread { [self] () -> Result<Void, HTTPError> in
        var offset = 0
        while offset < bytes.count {
          if closed.withLock({ $0 }) { return .failure(.cancelled) }
          let sent = bytes.withUnsafeBytes { raw in
            Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
          }
          if sent > 0 {
            offset += sent
          } else if errno != EINTR {
            return .failure(
              closed.withLock { $0 } ? .cancelled : .transport(URLError(.networkConnectionLost)))
          }
        }
        return .success(())
      }
      try result.get()
    }

    func close() {
      let first = closed.withLock { closed in
        defer { closed = true }
        return !closed
      }
      if first { shutdown(fd, Int32(SHUT_RDWR)) }
    }
  }
#endif
