import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A `Link` field (RFC 8288) holds URLs, as `Location` does: a paging API's next page may be
/// a presigned URL whose signature is a credential (`X-Amz-Signature`, `sig`, `token`).
/// It is shown with its URLs redacted, and an answer carrying one is not written to disk.
@Suite("URLs in a Link field", .timeLimit(.minutes(1)))
struct LinkHeaderSecretTests {
  @Test("a Link to a presigned page shows no signature in logs, descriptions or the disk cache")
  func presignedNext() async throws {
    let server = try LoopbackServer { request, response in
      let base = "http://127.0.0.1:\(request.headers["Host"]?.split(separator: ":").last ?? "")"
      let signed = request.path == "/items"
      let next =
        signed ? "\(base)/items?page=2&X-Amz-Signature=sig-SECRET-5" : "\(base)/plain?page=2"
      try await response.send(
        headers: [
          "Link": #"<\#(next)>; rel="next", <\#(base)/items?page=9>; rel="last""#,
          "Cache-Control": "max-age=600",
        ], text: "[]")
    }
    defer { server.stop() }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-link-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let cache = try HTTPCache(directory: directory)
    let printed = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.cache = cache
    configuration.middleware = [
      LoggingMiddleware(level: .headers) { line in printed.withLock { $0.append(line) } }
    ]
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    let response = try await client.response(for: Request<String>(path: "items")).response
    #expect(response.headers["Link"]?.contains("sig-SECRET-5") == true)  // as it came
    var dumped = ""
    dump(response, to: &dumped)
    let texts = ["\(response)", String(reflecting: response), dumped] + printed.withLock { $0 }
    for text in texts {
      #expect(!text.contains("SECRET"), "\(text)")
    }
    #expect(cache.diskUsage == 0)
    // The URL's other parts, and the field's parameters, show.
    #expect("\(response)".contains(#"/items?page=2&X-Amz-Signature=<redacted>>; rel="next""#))
    #expect("\(response)".contains(#"/items?page=9>; rel="last""#))
    // The good-path twin: a Link without a credential shows whole, and goes to disk.
    let plain = try await client.response(for: Request<String>(path: "plain")).response
    #expect("\(plain)".contains(#"/plain?page=2>; rel="next""#), "\(plain)")
    #expect(cache.diskUsage > 0)
  }
}
