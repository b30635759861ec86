import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A `206 Partial Content` answers only a range request (RFC 9110 §15.3.7): to one that asked
/// for no range, its body is not the answer. (Downloads: ResumeDataTests, over sockets.)
@Suite("A 206 to a request without Range")
struct PartialContentTests {
  /// A client whose every request gets a `206` with the first 5 bytes of 100.
  func client() -> (HTTPClient, StubTransport) {
    let stub = StubTransport().fallback { _ throws(HTTPError) in
      StubResponse(status: 206, headers: ["Content-Range": "bytes 0-4/100"], text: "hello")
    }
    return (makeClient(transport: stub), stub)
  }

  func expectBadServerResponse(
    _ error: HTTPError?, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    guard case .transport(let urlError) = error else {
      Issue.record("\(String(describing: error))", sourceLocation: sourceLocation)
      return
    }
    #expect(urlError.code == .badServerResponse, sourceLocation: sourceLocation)
    #expect("\(error!)".contains("206"), sourceLocation: sourceLocation)
  }

  @Test("send and a byte stream fail with badServerResponse rather than take it as the body")
  func refused() async throws {
    let (client, _) = client()
    let sent = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(path: "file"))
    }
    expectBadServerResponse(sent)
    let streamed = await #expect(throws: HTTPError.self) {
      _ = try await client.bytes(Request<Data>(path: "file"))
    }
    expectBadServerResponse(streamed)
  }

  @Test("a request that asked for a range gets its 206, body and all")
  func askedForARange() async throws {
    let (client, stub) = client()
    let part = try await client.response(
      for: Request<String>(path: "file", headers: ["Range": "bytes=0-4"]))
    #expect(part.value == "hello")
    #expect(part.response.status == 206)
    #expect(stub.requests.first?.value(forHTTPHeaderField: "Range") == "bytes=0-4")
  }
}
