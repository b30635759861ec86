#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import Glibc
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// `RetryPolicy.retriesOffline` over Linux's transports: CurlTransport reports a machine
  /// with no network as `notConnectedToInternet`, as URLSession does on Apple platforms.
  @Suite("Offline on Linux", .timeLimit(.minutes(2)))
  struct OfflineTests {
    /// A client over `transport` that retries being offline up to 3 attempts, with no waits,
    /// and the retries it made.
    static func retryingClient(_ transport: any HTTPTransport, retriesOffline: Bool = true)
      -> (HTTPClient, Locked<[HTTPError?]>)
    {
      let retries = Locked<[HTTPError?]>([])
      var configuration = HTTPClient.Configuration()
      configuration.middleware = [
        RetryPolicy(maximumAttempts: 3, retriesOffline: retriesOffline, clock: RecordingClock())
      ]
      configuration.observer = { event in
        if case .retrying(_, _, _, let error, _) = event { retries.withLock { $0.append(error) } }
      }
      let client = HTTPClient(
        baseURL: URL(string: "http://198.51.100.1")!, configuration: configuration,
        transport: transport)
      return (client, retries)
    }

    @Test("a connection that fails while the probe says offline is retried by retriesOffline")
    func pretendOffline() async throws {
      // 0.0.0.0 is this machine to Linux, but no loopback name: nothing leaves it, and the
      // refusal counts as "not reached" (the probe pretends there is no network).
      let (socket, port) = try Self.refusingPort()
      defer { close(socket) }
      let transport = CurlTransport(offline: OfflineProbe { true })
      let (client, retries) = Self.retryingClient(transport)
      let error = await #expect(throws: HTTPError.self) {
        _ = try await client.send(Request<Data>(path: "http://0.0.0.0:\(port)/a"))
      }
      #expect(Self.code(error) == .notConnectedToInternet)
      #expect(
        retries.withLock { $0 }.map(Self.code) == [
          .notConnectedToInternet, .notConnectedToInternet,
        ])
      let (plain, none) = Self.retryingClient(transport, retriesOffline: false)
      _ = await #expect(throws: HTTPError.self) {
        _ = try await plain.send(Request<Data>(path: "http://0.0.0.0:\(port)/a"))
      }
      #expect(none.withLock { $0 }.isEmpty)
    }

    /// A port on every address of this machine that refuses connections for as long as the
    /// returned socket is open: bound, not listening, and without `SO_REUSEADDR`, so that no
    /// test's server running meanwhile can take it (a port merely closed can be, and the
    /// request then reaches that server).
    static func refusingPort() throws -> (socket: Int32, port: Int) {
      let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      guard fd >= 0 else { throw CocoaError(.fileReadUnknown) }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
      }
      guard bound else {
        close(fd)
        throw CocoaError(.fileReadUnknown)
      }
      return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// The `URLError` code of a transport failure.
    static func code(_ error: HTTPError?) -> URLError.Code? {
      if case .transport(let error) = error { return error.code }
      return nil
    }

    /// A network namespace of this process's own (only `lo`, down): `ip netns` as root.
    /// Asked once per process.
    static var namespacesWork: Bool {
      get async { await triedNamespace.value }
    }

    private static let triedNamespace = Task { () -> Bool in
      guard getuid() == 0,
        FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")
          || FileManager.default.isExecutableFile(atPath: "/sbin/ip")
      else { return false }
      let name = "courier-probe-\(getpid())"
      let output = try? await ChildProcess.shell(
        "ip netns add \(name) 2>&1 && ip netns exec \(name) true 2>&1 && echo ok;"
          + " ip netns delete \(name) 2>/dev/null")
      return output.map { String(decoding: $0, as: UTF8.self).contains("ok") } ?? false
    }

    @Test(
      "with no network at all (a namespace of its own), both transports say what they see",
      .enabled("needs root and ip netns") { await namespacesWork })
    func reallyOffline() async throws {
      let binary = ProcessInfo.processInfo.arguments[0]
      let name = "courier-offline-\(getpid())"
      let command =
        "ip netns add \(name) && ip netns exec \(name) env COURIER_OFFLINE_CHILD=1 '\(binary)'"
        + " --testing-library swift-testing --filter OfflineChildTests 2>&1;"
        + " ip netns delete \(name)"
      let output = try await ProxyTests.run(command)
      #expect(output.contains("Test run with 3 tests"), "the child ran no test:\n\(output)")
      #expect(!output.contains("✘"), "the child failed:\n\(output)")
    }
  }

  /// The child's side of ``OfflineTests/reallyOffline()``: runs only in the namespace it
  /// starts in, where no interface but `lo` exists and `lo` is down.
  @Suite(
    "Offline on Linux (child process, no network)",
    .enabled(if: ProcessInfo.processInfo.environment["COURIER_OFFLINE_CHILD"] != nil))
  struct OfflineChildTests {
    /// An address no network reaches here (TEST-NET-2): nothing leaves a namespace without
    /// interfaces anyway.
    static let url = URL(string: "http://198.51.100.1/a")!

    @Test("the machine's probe finds no interface up")
    func probe() {
      #expect(!OfflineProbe.hasNetworkInterface())
    }

    @Test("CurlTransport reports notConnectedToInternet, and retriesOffline retries it")
    func curl() async throws {
      let (client, retries) = OfflineTests.retryingClient(CurlTransport())
      let error = await #expect(throws: HTTPError.self) {
        _ = try await client.send(Request<Data>(path: Self.url.absoluteString))
      }
      #expect(OfflineTests.code(error) == .notConnectedToInternet)
      #expect(retries.withLock { $0 }.count == 2)
      let unresolved = await #expect(throws: HTTPError.self) {
        _ = try await CurlTransport().send(URLRequest(url: URL(string: "http://courier.invalid/")!))
      }
      #expect(OfflineTests.code(unresolved) == .notConnectedToInternet)
    }

    @Test("URLSessionTransport (FoundationNetworking) reports an unknown error: written down")
    func urlSession() async throws {
      // FoundationNetworking maps a connection libcurl could not make for any reason but a
      // refusal or a timeout (here ENETUNREACH) to NSURLErrorUnknown.
      let error = await #expect(throws: HTTPError.self) {
        _ = try await URLSessionTransport().send(URLRequest(url: Self.url))
      }
      #expect(OfflineTests.code(error) == .unknown)
    }
  }
#endif
