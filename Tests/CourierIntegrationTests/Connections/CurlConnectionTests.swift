#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Glibc
  import Testing

  @testable import Courier

  /// A TCP listener on 127.0.0.1 whose accept queue is full: the kernel drops every further
  /// connection's SYN, so a connection to it is never made (and never refused).
  final class FullListener {
    let port: Int
    private var descriptors: [Int32] = []

    init() async throws {
      let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            && listen(listener, 0) == 0
        }
      }
      try #require(bound)
      descriptors.append(listener)
      port = Int(UInt16(bigEndian: address.sin_port))
      // Connections that fill the queue (a backlog of 0 holds one; a few more to be sure).
      for _ in 0..<3 {
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        _ = withUnsafePointer(to: &address) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
          }
        }
        descriptors.append(filler)
      }
      // Full once the first filler is connected. Until then a client's SYN can still be
      // answered (seen under load: its handshake won the race, its ACK was dropped once the
      // queue filled, and the client, connected as it saw it, waited for an answer for good).
      let first = descriptors[1]
      let connected = await onOwnThread {
        var entry = pollfd(fd: first, events: Int16(POLLOUT), revents: 0)
        return poll(&entry, 1, 30_000) == 1
      }
      try #require(connected)
    }

    deinit {
      for descriptor in descriptors { close(descriptor) }
    }
  }

  /// A TCP listener on 127.0.0.1 that accepts one connection, reads its first bytes and
  /// closes it: what a client sends before any server speaks.
  final class FirstBytesPeer: Sendable {
    let port: Int
    private let listener: Int32

    init() throws {
      listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let listener = self.listener
      let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            && listen(listener, 4) == 0
        }
      }
      try #require(bound)
      port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// The first `count` bytes of the first connection (fewer if it ends first).
    func firstBytes(count: Int) async -> Data {
      let listener = self.listener
      return await withCheckedContinuation { continuation in
        Thread {
          var bytes = [UInt8](repeating: 0, count: count)
          var read = 0
          let connection = accept(listener, nil, nil)
          while connection >= 0, read < count {
            let got = recv(connection, &bytes[read], count - read, 0)
            if got <= 0 { break }
            read += got
          }
          if connection >= 0 { close(connection) }
          continuation.resume(returning: Data(bytes.prefix(read)))
        }.start()
      }
    }

    deinit {
      close(listener)
    }
  }

  @Suite("CurlTransport's connections: overrides, timeouts, versions, pool limits")
  struct CurlConnectionTests {
    /// A server that answers with the Host field it was sent.
    private func hostEcho() throws -> LoopbackServer {
      try LoopbackServer { request, response in
        try await response.send(text: "\(request.method) \(request.headers["Host"] ?? "-")")
      }
    }

    @Test("an address override sends a made-up host name to 127.0.0.1, keeping its Host field")
    func addressOverride() async throws {
      let server = try hostEcho()
      defer { server.stop() }
      let name = "api.courier-test.invalid"
      let base = URL(string: "http://\(name):\(server.port)")!
      var configuration = CurlTransport.Configuration()
      configuration.addressOverrides = [.init(host: name, port: server.port, address: "127.0.0.1")]
      let client = HTTPClient(baseURL: base, transport: CurlTransport(configuration: configuration))
      #expect(try await client.send(Request<String>(path: "x")) == "GET \(name):\(server.port)")
      // Without it, the name is looked up, and there is no such name.
      let plain = HTTPClient(baseURL: base, transport: CurlTransport())
      let error = await #expect(throws: HTTPError.self) {
        try await plain.send(Request<String>(path: "x"))
      }
      #expect(error?.urlErrorCode == .cannotFindHost)
      #expect(server.requestCount == 1)
    }

    @Test("an override's entry is host:port:address, an IPv6 address in brackets")
    func overrideEntry() {
      let v4 = CurlTransport.AddressOverride(host: "a.test", port: 443, address: "10.0.0.7")
      let v6 = CurlTransport.AddressOverride(host: "a.test", port: 80, address: "::1")
      #expect(v4.curlEntry == "a.test:443:10.0.0.7")
      #expect(v6.curlEntry == "a.test:80:[::1]")
    }

    @Test(
      "a connect timeout ends a connection never made, with no request deadline to help",
      .timeLimit(.minutes(1)))
    func connectTimeout() async throws {
      let peer = try await FullListener()
      var configuration = CurlTransport.Configuration()
      configuration.connectTimeout = .milliseconds(300)
      var settings = HTTPClient.Configuration()
      settings.timeout = nil
      settings.idleTimeout = nil
      let client = HTTPClient(
        baseURL: URL(string: "http://127.0.0.1:\(peer.port)")!, configuration: settings,
        transport: CurlTransport(configuration: configuration))
      let error = await #expect(throws: HTTPError.self) {
        try await client.send(Request<String>(path: "x"))
      }
      #expect(error == .timedOut)
    }

    /// `.seconds(Int64.max)` in milliseconds overflowed an `Int`: the process crashed at the
    /// first request.
    @Test("connection limits as long as a Duration holds are kept, and the request is answered")
    func longestConnectionLimits() async throws {
      let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
      defer { server.stop() }
      for longest in [Duration.seconds(Int64.max), .seconds(1e16), .seconds(2)] {
        var configuration = CurlTransport.Configuration()
        configuration.connectTimeout = longest
        configuration.maximumIdleTime = longest
        configuration.maximumConnectionLifetime = longest
        let client = HTTPClient(
          baseURL: server.baseURL, transport: CurlTransport(configuration: configuration))
        #expect(try await client.send(Request<String>(path: "x")) == "ok", "\(longest)")
      }
    }

    @Test("HTTP/2 with prior knowledge sends the connection preface, not an HTTP/1.1 request")
    func priorKnowledge() async throws {
      let peer = try FirstBytesPeer()
      var configuration = CurlTransport.Configuration()
      configuration.httpVersion = .http2PriorKnowledge
      let client = HTTPClient(
        baseURL: URL(string: "http://127.0.0.1:\(peer.port)")!,
        transport: CurlTransport(configuration: configuration))
      async let answer = Result { () async throws(HTTPError) in
        try await client.send(Request<String>(path: "x"))
      }
      let first = await peer.firstBytes(count: 24)
      #expect(String(decoding: first, as: UTF8.self) == "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
      _ = await answer  // the peer closed without answering
      // HTTP/1.1 only, and the default over plain http, speak HTTP/1.1.
      let server = try hostEcho()
      defer { server.stop() }
      for version in [CurlTransport.HTTPVersion.http1Only, .automatic] {
        configuration.httpVersion = version
        let plain = HTTPClient(
          baseURL: server.baseURL, transport: CurlTransport(configuration: configuration))
        #expect(try await plain.send(Request<String>(path: "x")).hasPrefix("GET "))
      }
    }

    @Test("prior knowledge without nghttp2 is refused clearly; h2 over TLS falls back to 1.1")
    func priorKnowledgeWithoutHTTP2() throws {
      let refuses: (Int) -> Int32 = { $0 == Curl.http11 ? 0 : Curl.unsupportedProtocol }
      #expect(throws: HTTPError.self) {
        try CurlTransfer.setHTTPVersion(Curl.http2PriorKnowledge, with: refuses)
      }
      #expect(throws: Never.self) {
        try CurlTransfer.setHTTPVersion(Curl.http2OverTLS, with: refuses)
      }
    }

    /// libcurl sized its connection cache by the transfers in flight (four each): as a burst
    /// ended, the cache shrank with it and closed the burst's connections one by one, so
    /// the next burst made them all again (over `https`, a TLS handshake each).
    @Test("a burst's connections are kept for the next burst", .timeLimit(.minutes(1)))
    func burstsReuse() async throws {
      let width = 30
      let gates = [ArrivalGate(count: width), ArrivalGate(count: width)]
      let server = try LoopbackServer { request, response in
        // Every request of a burst is held until the whole burst has arrived: `width`
        // connections at once.
        await gates[request.path.hasPrefix("/b") ? 1 : 0].arrive()
        try await response.send(text: "ok")
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      for path in ["a", "b"] {
        try await withThrowingTaskGroup(of: String.self) { group in
          for index in 0..<width {  // distinct paths: identical GETs in flight are coalesced
            group.addTask { try await client.send(Request<String>(path: "\(path)\(index)")) }
          }
          for try await text in group { #expect(text == "ok") }
        }
      }
      #expect(server.requestCount == 2 * width)
      #expect(server.connectionCount == width)
    }

    /// The same cache, sized four per transfer in flight, held four connections for a caller
    /// with one request at a time: one to each of eight hosts in turn closed the oldest at
    /// every answer, and each request made a connection again.
    @Test("one request at a time to eight hosts in turn keeps a connection to each")
    func manyHostsReuse() async throws {
      let servers = try (0..<8).map { _ in
        try LoopbackServer { _, response in try await response.send(text: "ok") }
      }
      defer { for server in servers { server.stop() } }
      let transport = CurlTransport()
      let clients = servers.map { HTTPClient(baseURL: $0.baseURL, transport: transport) }
      for round in 0..<3 {
        for client in clients {
          #expect(try await client.send(Request<String>(path: "r\(round)")) == "ok")
        }
      }
      #expect(servers.map(\.connectionCount) == Array(repeating: 1, count: servers.count))
    }

    @Test(
      "a connection past its lifetime carries no new request: the server sees a second one",
      .timeLimit(.minutes(1)))
    func lifetime() async throws {
      let server = try hostEcho()
      defer { server.stop() }
      var configuration = CurlTransport.Configuration()
      configuration.maximumConnectionLifetime = .seconds(1)
      let limited = HTTPClient(
        baseURL: server.baseURL, transport: CurlTransport(configuration: configuration))
      let unlimited = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      for client in [limited, unlimited] { _ = try await client.send(Request<String>(path: "a")) }
      #expect(server.connectionCount == 2)
      // libcurl compares a connection's age in whole seconds of the wall clock, more than the
      // lifetime: no clock of the test's can stand in, so the test waits that long.
      try await Task.sleep(for: .milliseconds(2_100))
      for client in [limited, unlimited] { _ = try await client.send(Request<String>(path: "b")) }
      #expect(server.connectionCount == 3)  // the limited client's second connection only
    }

    @Test("durations go to libcurl in whole units, rounded up, at least one")
    func units() {
      typealias Settings = CurlTransport.Settings
      #expect(Settings.milliseconds(.microseconds(1)) == 1)
      #expect(Settings.milliseconds(.milliseconds(1500)) == 1500)
      #expect(Settings.milliseconds(.nanoseconds(1_500_001)) == 2)
      #expect(Settings.seconds(.milliseconds(1)) == 1)
      #expect(Settings.seconds(.seconds(2)) == 2)
      #expect(Settings.seconds(.milliseconds(2001)) == 3)
    }
  }
#endif

#if canImport(FoundationNetworking)
  /// ChoosingATransport's snippets, compiled.
  @Suite("ChoosingATransport's examples")
  struct ChoosingATransportExamples {
    @Test("the connection configuration and the Docker client are built as the article shows")
    func examples() throws {
      let api = URL(string: "https://api.internal")!
      var configuration = CurlTransport.Configuration()
      configuration.connectTimeout = .seconds(2)
      configuration.addressOverrides = [.init(host: "api.internal", port: 443, address: "10.0.0.7")]
      configuration.httpVersion = .http1Only
      configuration.maximumIdleTime = .seconds(30)
      configuration.maximumConnectionLifetime = .seconds(300)
      let client = HTTPClient(baseURL: api, transport: CurlTransport(configuration: configuration))
      #expect(client.transport is CurlTransport)
      let docker = HTTPClient(
        baseURL: URL(unixSocketPath: "/var/run/docker.sock")!, transport: CurlTransport())
      #expect(
        try docker.urlRequest(for: Request<Data>(path: "v1.43/containers/json")).url?.absoluteString
          == "http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/containers/json")
    }
  }
#endif

#if canImport(FoundationNetworking)
  extension ChoosingATransportExamples {
    @Test("the mutual TLS example is built as the article shows")
    func mutualTLSExample() throws {
      let api = URL(string: "https://api.internal")!
      let secret = "passphrase"
      let bundle = FileManager.default.temporaryDirectory.appendingPathComponent(
        "courier-example-\(UUID().uuidString).p12")
      try Data(count: 4).write(to: bundle)
      defer { try? FileManager.default.removeItem(at: bundle) }
      var configuration = CurlTransport.Configuration()
      configuration.clientIdentity = .pkcs12(try Data(contentsOf: bundle), passphrase: secret)
      configuration.minimumTLSVersion = .tls13
      let client = HTTPClient(baseURL: api, transport: CurlTransport(configuration: configuration))
      #expect(client.transport is CurlTransport)
    }
  }
#endif

#if canImport(FoundationNetworking)
  extension ChoosingATransportExamples {
    @Test("the proxy example is built as the article shows")
    func proxyExample() {
      var configuration = CurlTransport.Configuration()
      configuration.proxy = .http(
        host: "proxy.internal", port: 3128, username: "svc", password: "secret",
        excluding: ["localhost", ".internal"])
      #expect(
        CurlTransport(configuration: configuration).settings.configuration.proxy?.port == 3128)
    }
  }
#endif
