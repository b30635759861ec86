import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A hurried caller makes a client for each request and lets it go. Clients given no
/// transport share the process's one, so such a caller still reuses its connections, as one
/// long-lived client would, on whichever transport the process's default is.
///
/// The tests running beside these share that transport and its connection cache, which
/// libcurl (under both transports on Linux) trims of its oldest idle connections when it is
/// full (CurlTransport keeps 100; FoundationNetworking sizes it by the transfers in flight):
/// now and then it closes this server's between two requests, so a second connection is
/// allowed for. A transport per client made one connection per request.
@Suite("Clients given no transport share their connections")
struct DefaultTransportSharingTests {
  static let requests = 10
  /// Reuse, with room for the odd connection the shared cache closed meanwhile.
  static let mostConnections = 3

  @Test("a client made for each request still sends them all over one connection")
  func clientPerRequest() async throws {
    let server = try LoopbackServer { _, response in
      try await response.send(text: "ok")
    }
    defer { server.stop() }
    for _ in 0..<Self.requests {
      let text = try await HTTPClient(baseURL: server.baseURL).send(Request<String>(path: "x"))
      #expect(text == "ok")
    }
    #expect(server.requestCount == Self.requests)
    #expect(server.connectionCount <= Self.mostConnections)
  }

  @Test("one long-lived client: one connection too (the same measure, kept as users should)")
  func oneClient() async throws {
    let server = try LoopbackServer { _, response in
      try await response.send(text: "ok")
    }
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    for _ in 0..<Self.requests {
      #expect(try await client.send(Request<String>(path: "x")) == "ok")
    }
    #expect(server.connectionCount <= Self.mostConnections)
  }

  @Test("a client given a transport of its own keeps it: its connections are its own")
  func ownTransport() async throws {
    let server = try LoopbackServer { _, response in
      try await response.send(text: "ok")
    }
    defer { server.stop() }
    _ = try await HTTPClient(baseURL: server.baseURL).send(Request<String>(path: "x"))
    let own = HTTPClient(baseURL: server.baseURL, transport: URLSessionTransport())
    _ = try await own.send(Request<String>(path: "x"))
    #expect(server.connectionCount == 2)
  }
}
