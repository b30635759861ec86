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

    @Test("clients given no transport share the process's one, whichever transport it is")
    func shared() {
      let url = URL(string: "https://api.example.com")!
      let first = identity(HTTPClient(baseURL: url).transport)
      #expect(first == identity(HTTPClient(baseURL: url).transport))
      // Both defaults are single, whichever this process picks.
      #expect(DefaultTransport.sharedCurl === DefaultTransport.sharedCurl)
      #expect(DefaultTransport.sharedURLSession === DefaultTransport.sharedURLSession)
      switch DefaultTransport.kind(
        environment: ProcessInfo.processInfo.environment, curlLoads: CurlTransport.isAvailable)
      {
      case .curl: #expect(first == ObjectIdentifier(DefaultTransport.sharedCurl))
      case .urlSession: #expect(first == ObjectIdentifier(DefaultTransport.sharedURLSession))
      }
    }

  #else
    @Test("Apple platforms: URLSessionTransport, whatever the environment says, one for all")
    func client() {
      let url = URL(string: "https://api.example.com")!
      let first = HTTPClient(baseURL: url).transport
      #expect(first is URLSessionTransport)
      #expect(identity(first) == identity(HTTPClient(baseURL: url).transport))
    }
  #endif

  @Test("a transport passed to a client is that client's, not the shared one")
  func passed() {
    let own = URLSessionTransport()
    let client = HTTPClient(baseURL: URL(string: "https://api.example.com")!, transport: own)
    #expect(identity(client.transport) == ObjectIdentifier(own))
    #expect(own !== DefaultTransport.sharedURLSession)
  }

  /// Which transport object `transport` is.
  func identity(_ transport: any HTTPTransport) -> ObjectIdentifier {
    ObjectIdentifier(transport as AnyObject)
  }
}
