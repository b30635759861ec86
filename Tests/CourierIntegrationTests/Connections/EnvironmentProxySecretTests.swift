#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// A proxy's password written into `http_proxy` is a credential. libcurl (CurlTransport's,
  /// and FoundationNetworking's under URLSessionTransport) reads the variable itself, and
  /// when it cannot use it — a password with an `@` left unencoded, a scheme it does not
  /// know — fails the transfer with words that quote it whole. The environment is the
  /// process's, so the requests are made by a child process (this test binary, running only
  /// ``EnvironmentProxySecretChild``), as ``ProxyTests`` does.
  @Suite("Proxy credentials from the environment", .timeLimit(.minutes(2)))
  struct EnvironmentProxySecretTests {
    /// Runs the child with `mode` and the environment `variables`, and what it printed.
    private func child(_ mode: String, _ variables: String) async throws -> String {
      let binary = ProcessInfo.processInfo.arguments[0]
      try #require(FileManager.default.isExecutableFile(atPath: binary))
      let command =
        "env -u no_proxy -u NO_PROXY -u https_proxy -u HTTPS_PROXY -u all_proxy -u ALL_PROXY"
        + " \(variables) COURIER_PROXY_SECRET_CHILD=\(mode) '\(binary)'"
        + " --testing-library swift-testing --filter EnvironmentProxySecretChild 2>&1"
      let output = try await ProxyTests.run(command)
      #expect(output.contains("Test run with 1 test"), "the child ran no test:\n\(output)")
      #expect(!output.contains("✘"), "the child failed:\n\(output)")
      return output
    }

    @Test(
      "a proxy URL libcurl cannot use fails on both transports, its password in no text of the error",
      arguments: [
        "http://svc:p@ss-s3cret@127.0.0.1:1", "ftp://svc:p%40ss-s3cret@127.0.0.1:1",
        "svc:p ss-s3cret@127.0.0.1:1",
      ])
    func unusable(proxy: String) async throws {
      _ = try await child("fails", "http_proxy='\(proxy)'")
    }

    @Test("the same password, percent-encoded, reaches the proxy as its Basic credentials")
    func usable() async throws {
      let seen = Locked<[String]>([])
      let proxy = try LoopbackServer { request, response in
        seen.withLock { $0.append(request.headers["Proxy-Authorization"] ?? "-") }
        try await response.send(text: "via proxy")
      }
      defer { proxy.stop() }
      _ = try await child("passes", "http_proxy='http://svc:p%40ss-s3cret@127.0.0.1:\(proxy.port)'")
      let basic = "Basic " + Data("svc:p@ss-s3cret".utf8).base64EncodedString()
      #expect(seen.withLock { $0 } == [basic, basic])
    }

    @Test(
      "a proxy (or the origin it forwards to) echoing its Basic token in an error shows it nowhere")
    func echoed() async throws {
      let proxy = try LoopbackServer { request, response in
        let seen = request.headers["Proxy-Authorization"] ?? "-"
        try await response.send(
          status: 400, text: "got Proxy-Authorization: \(seen) and X-Trace: trace-visible")
      }
      defer { proxy.stop() }
      _ = try await child("echoes", "http_proxy='http://svc:p%40ss-s3cret@127.0.0.1:\(proxy.port)'")
    }
  }

  /// The child's side of ``EnvironmentProxySecretTests``: runs only in the child process it
  /// starts, sending one request over each transport through the environment's proxy.
  @Suite(
    "Proxy credentials from the environment (child process)",
    .enabled(if: ProcessInfo.processInfo.environment["COURIER_PROXY_SECRET_CHILD"] != nil))
  struct EnvironmentProxySecretChild {
    @Test("each transport's request fails without the password, or passes, as asked")
    func request() async throws {
      let mode = ProcessInfo.processInfo.environment["COURIER_PROXY_SECRET_CHILD"]
      let fails = mode == "fails"
      for transport in [CurlTransport() as any HTTPTransport, URLSessionTransport()] {
        let client = HTTPClient(
          baseURL: URL(string: "http://\(ProxyTests.host)/")!, transport: transport)
        if mode == "echoes" {
          let error = await #expect(throws: HTTPError.self) {
            try await client.send(Request<String>(path: "p"))
          }
          let token = Data("svc:p@ss-s3cret".utf8).base64EncodedString()
          let body = String(decoding: error?.response?.body ?? Data(), as: UTF8.self)
          #expect(body.contains(token), "\(type(of: transport)): the proxy saw no token: \(body)")
          var dumped = ""
          dump(error, to: &dumped)
          for text in ["\(String(describing: error))", dumped] {
            #expect(
              !text.contains(token) && !text.contains("s3cret"), "\(type(of: transport)): \(text)")
          }
          // The good-path twin: what is no credential shows.
          #expect("\(String(describing: error))".contains("X-Trace: trace-visible"))
          continue
        }
        guard fails else {
          #expect(try await client.send(Request<String>(path: "p")) == "via proxy")
          continue
        }
        let caught = await #expect(throws: HTTPError.self) {
          try await client.send(Request<String>(path: "p"))
        }
        let error = try #require(caught)
        guard case .transport(let urlError) = error else {
          Issue.record("\(transport): \(error)")
          continue
        }
        var dumped = ""
        dump(error, to: &dumped)
        let texts = [
          "\(error)", String(reflecting: error), error.localizedDescription, dumped,
          "\(urlError)", urlError.localizedDescription,
          "\(urlError.userInfo[NSUnderlyingErrorKey] ?? "")",
        ]
        for text in texts {
          #expect(!text.contains("s3cret"), "\(type(of: transport)): \(text)")
        }
        // A transport used on its own: its error's description shows libcurl's words, but
        // not the password in them.
        let direct = await #expect(throws: HTTPError.self) {
          try await transport.send(URLRequest(url: URL(string: "http://\(ProxyTests.host)/")!))
        }
        #expect(direct?.urlErrorCode != nil)
        #expect(
          !"\(String(describing: direct))".contains("s3cret"), "\(String(describing: direct))")
      }
    }
  }
#endif
