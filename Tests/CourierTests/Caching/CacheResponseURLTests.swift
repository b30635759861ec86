import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The cache stores what answered the URL asked for, whether or not the transport spells
/// that URL the same way: only the client's redirect loop says a response came from
/// elsewhere.
@Suite("HTTPCache: a response's URL as the transport spells it")
struct CacheResponseURLTests {
  /// Answers every request as a platform's URL loading may: the host lowercased and a `/`
  /// added to an empty path (the request's own URL is left as it was sent), fresh for a
  /// minute; counts what it answered.
  final class CanonicalizingTransport: HTTPTransport, Sendable {
    let answered = Locked(0)

    func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
      -> TransportResponse
    {
      answered.withLock { $0 += 1 }
      var url = request.url
      if let sent = url, var components = URLComponents(url: sent, resolvingAgainstBaseURL: true) {
        components.host = components.host?.lowercased()
        if components.path.isEmpty { components.path = "/" }
        url = components.url
      }
      let head = HTTPResponse(
        status: 200, headers: ["Cache-Control": "max-age=60", "Content-Length": "2"],
        url: url)
      let (body, writer) = TransportResponseBody.makeStream { _ in }
      try writer.write(Data("ok".utf8))
      writer.finish()
      return TransportResponse(head: head, body: body)
    }
  }

  @Test("an answer whose URL the transport spelled otherwise is stored and answers again")
  func spelledOtherwise() async throws {
    let transport = CanonicalizingTransport()
    let client = HTTPClient(
      baseURL: URL(string: "https://API.Example.com")!,
      configuration: .init(cache: HTTPCache(memoryCapacity: 1 << 20)), transport: transport)
    let first = try await client.response(for: Request<String>(path: ""))
    #expect(first.response.url?.absoluteString == "https://api.example.com/")
    let again = try await client.response(for: Request<String>(path: ""))
    #expect(again.value == "ok")
    #expect(again.response.cacheStatus == .hit)
    #expect(transport.answered.withLock { $0 } == 1)
  }
}
