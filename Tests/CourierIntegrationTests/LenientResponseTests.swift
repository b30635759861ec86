import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Answers that bend HTTP/1.1 without breaking it, and a body whose coding is corrupt: what
/// each transport makes of them, as PlatformNotes' table says. FoundationNetworking's own
/// parser refuses some that libcurl reads, and says `unknown` where libcurl names the cause.
@Suite("Answers that bend HTTP, per transport", .timeLimit(.minutes(1)))
struct LenientResponseTests {

  @Test(
    "a status line without a reason phrase, or lines ended by LF alone, are read by libcurl",
    arguments: [
      "HTTP/1.1 200\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
      "HTTP/1.1 200 OK\nContent-Length: 5\nConnection: close\n\nhello",
    ])
  func lenientHeads(wire: String) async throws {
    let server = try LoopbackServer { _, response in try await response.sendRaw(Data(wire.utf8)) }
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    let outcome: String
    do throws(HTTPError) {
      outcome = try await client.send(Request<String>(path: "x"))
    } catch {
      outcome = error.urlErrorCode == .unknown ? "unknown" : "\(error)"
    }
    // FoundationNetworking's parser, before its libcurl's, refuses them (Apple's URLSession
    // is not measured here).
    #if canImport(FoundationNetworking)
      #expect(outcome == (sendsOverCurl(client) ? "hello" : "unknown"))
    #endif
  }

  @Test(
    "a corrupt gzip or deflate body is cannotDecodeContentData, named so",
    arguments: [
      "gzip", "deflate",
    ])
  func corruptCoding(coding: String) async throws {
    let wire = "HTTP/1.1 200 OK\r\nContent-Encoding: \(coding)\r\nContent-Length: 5\r\n\r\nhello"
    let server = try LoopbackServer { _, response in try await response.sendRaw(Data(wire.utf8)) }
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "x"))
    }
    // Over URLSessionTransport on Linux too: FoundationNetworking said `unknown`, with
    // libcurl's words ("Error while processing content unencoding: incorrect header check").
    #expect(error?.urlErrorCode == .cannotDecodeContentData, "\(String(describing: error))")
    #expect(String(describing: error).contains("content coding could not be undone"))
  }
}
