import Foundation
import Testing

@testable import Courier

/// The transport a client given none gets. The environment is the whole process's and other
/// tests run alongside, so the rule is tested as a function of an environment passed to it;
/// only the last test reads the real one, and none sets it.
@Suite("The default transport")
struct DefaultTransportTests {
  #if canImport(FoundationNetworking)
    typealias Kind = DefaultTransport.Kind

    @Test("Linux: CurlTransport when libcurl loads, URLSessionTransport when it does not")
    func byLibrary() {
      #expect(DefaultTransport.kind(environment: [:], curlLoads: true) == .curl)
      #expect(DefaultTransport.kind(environment: [:], curlLoads: false) == .urlSession)
    }

    @Test(
      "COURIER_TRANSPORT chooses, whether libcurl loads or not",
      arguments: [
        ("urlsession", Kind.urlSession), ("curl", .curl), ("URLSession", .urlSession),
        (" curl\n", .curl), ("CURL", .curl),
      ])
    func chosen(value: String, kind: Kind) {
      for loads in [true, false] {
        let environment = ["COURIER_TRANSPORT": value, "PATH": "/usr/bin"]
        #expect(DefaultTransport.kind(environment: environment, curlLoads: loads) == kind)
      }
    }

    @Test("a named transport is taken without loading libcurl to ask whether it loads")
    func namedLoadsNothing() {
      for value in ["urlsession", "curl"] {
        let kind = DefaultTransport.kind(
          environment: ["COURIER_TRANSPORT": value],
          curlLoads: { () -> Bool in
            Issue.record("libcurl was asked about for COURIER_TRANSPORT=\(value)")
            return true
          }())
        #expect(kind.rawValue == value)
      }
    }

    @Test(
      "any other value is ignored: the default as if it were unset",
      arguments: ["", "libcurl", "url-session", "foundation", "curl urlsession"])
    func ignored(value: String) {
      for loads in [true, false] {
        #expect(
          DefaultTransport.kind(environment: ["COURIER_TRANSPORT": value], curlLoads: loads)
            == (loads ? .curl : .urlSession))
      }
    }

    @Test("a client given no transport gets the one the rule picks for this process")
    func client() {
      let expected = DefaultTransport.kind(
        environment: ProcessInfo.processInfo.environment, curlLoads: CurlTransport.isAvailable)
      let client = HTTPClient(baseURL: URL(string: "https://api.example.com")!)
      switch expected {
      case .curl: #expect(client.transport is CurlTransport)
      case .urlSession: #expect(client.transport is URLSessionTransport)
      }
    }

    @Test("clients given no transport share one CurlTransport: one thread for the process")
    func shared() {
      let url = URL(string: "https://api.example.com")!
      let first = HTTPClient(baseURL: url).transport as? CurlTransport
      let second = HTTPClient(baseURL: url).transport as? CurlTransport
      switch DefaultTransport.kind(
        environment: ProcessInfo.processInfo.environment, curlLoads: CurlTransport.isAvailable)
      {
      case .curl:
        #expect(first != nil)
        #expect(first === second)
      case .urlSession:
        #expect(first == nil)
      }
    }
  #else
    @Test("Apple platforms: URLSessionTransport, whatever the environment says")
    func client() {
      let client = HTTPClient(baseURL: URL(string: "https://api.example.com")!)
      #expect(client.transport is URLSessionTransport)
    }
  #endif
}
