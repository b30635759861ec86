#if canImport(FoundationNetworking)
  import CourierTestSupport
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// How CurlTransport tells "offline" from "that host is unreachable" (the decision, with a
  /// probe the test sets; the namespace test in CourierIntegrationTests runs it for real).
  @Suite("CurlTransport: offline or unreachable")
  struct CurlOfflineTests {
    /// A probe answering `offline`, counting how often it is asked.
    func probe(offline: Bool, asked: Locked<Int> = Locked(0)) -> OfflineProbe {
      OfflineProbe {
        asked.withLock { $0 += 1 }
        return offline
      }
    }

    func code(_ curlCode: Int32, _ url: String, offline: Bool) -> URLError.Code? {
      let error = HTTPError(
        curlCode: curlCode, url: URL(string: url), offline: probe(offline: offline))
      guard case .transport(let urlError) = error else { return nil }
      return urlError.code
    }

    @Test("with no interface up, a host not found or not reached is notConnectedToInternet")
    func offline() {
      #expect(code(7, "https://api.example.com/a", offline: true) == .notConnectedToInternet)
      #expect(code(6, "https://api.example.com/a", offline: true) == .notConnectedToInternet)
      #expect(code(5, "https://api.example.com/a", offline: true) == .notConnectedToInternet)
    }

    @Test("with an interface up, they stay what they are")
    func online() {
      #expect(code(7, "https://api.example.com/a", offline: false) == .cannotConnectToHost)
      #expect(code(6, "https://api.example.com/a", offline: false) == .cannotFindHost)
    }

    @Test("this machine itself is reached with no network: a refusal there stays a refusal")
    func loopback() {
      for url in [
        "http://127.0.0.1:9/a", "http://localhost:9/a", "http://[::1]:9/a",
        "http://api.localhost:9/a", "http://127.1.2.3/a",
      ] {
        #expect(code(7, url, offline: true) == .cannotConnectToHost, "\(url)")
      }
    }

    @Test("other failures never ask whether the machine is offline")
    func otherFailures() {
      let asked = Locked(0)
      let url = URL(string: "https://api.example.com/a")
      #expect(
        HTTPError(curlCode: 28, url: url, offline: probe(offline: true, asked: asked))
          == .timedOut)
      let tls = HTTPError(curlCode: 35, url: url, offline: probe(offline: true, asked: asked))
      guard case .transport(let error) = tls else {
        Issue.record("\(tls)")
        return
      }
      #expect(error.code == .secureConnectionFailed)
      #expect(asked.withLock { $0 } == 0)
    }

    @Test("the machine's own probe answers (this one has an interface up, or says it has none)")
    func systemProbe() throws {
      let up = OfflineProbe.hasNetworkInterface()
      #expect(OfflineProbe.system.isOffline() == !up)
      // Cross-checked with the kernel's own list: an interface other than lo that is up
      // (IFF_UP in its flags) with its link up exists whenever the probe finds one.
      let names = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/net")) ?? []
      let running = names.filter { name in
        func read(_ file: String) -> String {
          let text = try? String(contentsOfFile: "/sys/class/net/\(name)/\(file)", encoding: .utf8)
          return text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        }
        let flags = Int(read("flags").dropFirst(2), radix: 16) ?? 0
        return name != "lo" && flags & 0x1 != 0 && ["up", "unknown"].contains(read("operstate"))
      }
      if up { #expect(!running.isEmpty) }
    }
  }
#endif
