#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// CurlTransport takes its proxy from the environment (`http_proxy`, `https_proxy`,
  /// `no_proxy`), as curl does. The environment is the whole process's, and other tests run
  /// alongside, so the request through the proxy is made by a child process: this test
  /// binary again, running only ``ProxyChildTests`` with `http_proxy` set.
  @Suite("CurlTransport and proxies from the environment", .timeLimit(.minutes(2)))
  struct ProxyTests {
    /// The host the child asks for: it does not resolve, so only a proxy can answer.
    static let host = "proxied.courier.invalid"

    @Test("a request goes through the proxy http_proxy names, with its absolute URL")
    func environmentProxy() async throws {
      let binary = ProcessInfo.processInfo.arguments[0]
      try #require(FileManager.default.isExecutableFile(atPath: binary))
      let targets = Locked<[String]>([])
      let proxy = try LoopbackServer { request, response in
        targets.withLock { $0.append(request.target) }
        try await response.send(text: "via proxy")
      }
      defer { proxy.stop() }
      let command =
        "env -u no_proxy -u NO_PROXY http_proxy=http://127.0.0.1:\(proxy.port)"
        + " COURIER_PROXY_CHILD=1 '\(binary)' --testing-library swift-testing"
        + " --filter ProxyChildTests 2>&1"
      let output = try await Self.run(command)
      #expect(output.contains("Test run with 1 test"), "the child ran no test:\n\(output)")
      #expect(!output.contains("✘"), "the child failed:\n\(output)")
      #expect(targets.withLock { $0 } == ["http://\(Self.host)/through-proxy"])
    }

    /// What `command` prints, run by `sh`, as text.
    static func run(_ command: String) async throws -> String {
      String(decoding: try await ChildProcess.shell(command), as: UTF8.self)
    }
  }

  /// The child's side of ``ProxyTests``: runs only in the child process it starts.
  @Suite(
    "CurlTransport through an environment proxy (child process)",
    .enabled(if: ProcessInfo.processInfo.environment["COURIER_PROXY_CHILD"] != nil))
  struct ProxyChildTests {
    @Test("the request is answered by the proxy")
    func throughProxy() async throws {
      let url = URL(string: "http://\(ProxyTests.host)/through-proxy")!
      let response = try await CurlTransport().send(URLRequest(url: url))
      #expect(response.status == 200)
      #expect(response.text == "via proxy")
    }
  }
#endif
