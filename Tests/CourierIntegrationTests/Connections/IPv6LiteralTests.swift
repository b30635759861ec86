#if canImport(FoundationNetworking)
  import CourierTestSupport
  import Foundation
  import Glibc
  import Testing

  @testable import Courier

  /// A TCP listener on `[::1]` that answers each connection's request with the `Host` field
  /// it was sent, then closes it: LoopbackServer listens on 127.0.0.1 only.
  final class IPv6HostEcho: Sendable {
    let port: Int
    private let listener: Int32

    /// A listener, or `nil` where this machine has no IPv6 loopback.
    init?() {
      let listener = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in6()
      address.sin6_family = sa_family_t(AF_INET6)
      address.sin6_addr = in6addr_loopback
      var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
      let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            && listen(listener, 8) == 0
        }
      }
      guard listener >= 0, bound else {
        if listener >= 0 { close(listener) }
        return nil
      }
      self.listener = listener
      port = Int(UInt16(bigEndian: address.sin6_port))
      Thread { [listener] in
        while true {
          let connection = accept(listener, nil, nil)
          guard connection >= 0 else { return }  // closed
          Self.answer(connection)
        }
      }.start()
    }

    private static func answer(_ connection: Int32) {
      defer { close(connection) }
      var head = Data()
      var buffer = [UInt8](repeating: 0, count: 4096)
      while head.range(of: Data("\r\n\r\n".utf8)) == nil {
        let got = recv(connection, &buffer, buffer.count, 0)
        guard got > 0 else { return }
        head.append(contentsOf: buffer.prefix(got))
      }
      let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
      let host = lines.first { $0.lowercased().hasPrefix("host:") }?.dropFirst(5)
      let body = (host ?? "-").trimmingCharacters(in: .whitespaces)
      let answer =
        "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n"
        + "Connection: close\r\n\r\n\(body)"
      _ = answer.withCString { send(connection, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    func stop() {
      shutdown(listener, Int32(SHUT_RDWR))
      close(listener)
    }
  }

  @Suite("An IPv6 address as the host", .timeLimit(.minutes(1)))
  struct IPv6LiteralTests {
    @Test(
      "CurlTransport connects to [::1] and sends Host in brackets; FoundationNetworking refuses the URL",
      .enabled("needs an IPv6 loopback") {
        IPv6HostEcho().map { server in
          server.stop()
          return true
        } ?? false
      })
    func literal() async throws {
      let server = try #require(IPv6HostEcho())
      defer { server.stop() }
      let base = try #require(URL(string: "http://[::1]:\(server.port)/api/"))
      let curl = HTTPClient(baseURL: base, transport: CurlTransport())
      #expect(try await curl.send(Request<String>(path: "x")) == "[::1]:\(server.port)")
      // PlatformNotes: FoundationNetworking fails every such URL as a bad one.
      let session = HTTPClient(baseURL: base, transport: URLSessionTransport())
      let error = await #expect(throws: HTTPError.self) {
        try await session.send(Request<String>(path: "x"))
      }
      #expect(error?.urlErrorCode == .badURL)
    }
  }
#endif
