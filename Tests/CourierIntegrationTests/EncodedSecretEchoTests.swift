import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A server echoes a credential the way it writes text: percent-encoded in a URL or a field
/// (`%2F` for `/`, `%2B` for `+`, `%3D` for `=`), or escaped in JSON (`\/`, as Foundation's
/// `JSONEncoder` and PHP's `json_encode` write a slash). A token with those characters
/// (Basic's, and many opaque ones, are base64) is the credential still.
@Suite("A credential echoed encoded", .timeLimit(.minutes(1)))
struct EncodedSecretEchoTests {
  private let token = "tok/SECRET+42=="
  private let visible = "plain/value+1=="

  /// What `value` looks like in a URL, percent-encoded (with lowercase hex when `lower`).
  private static func percentEncoded(_ value: String, lower: Bool = false) -> String {
    let encoded = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
    guard lower else { return encoded }
    return ["%2F": "%2f", "%2B": "%2b", "%3D": "%3d"].reduce(encoded) {
      $0.replacingOccurrences(of: $1.key, with: $1.value)
    }
  }

  /// A server answering `status` with the credential and a plain value echoed in every
  /// form, in a header and in a JSON body.
  private func echoing(status: Int, cacheable: Bool = false) throws -> LoopbackServer {
    try LoopbackServer { request, response in
      let seen = request.headers["Authorization"] ?? "-"
      let plain = request.headers["X-Visible"] ?? "-"
      let json = String(
        decoding: try JSONEncoder().encode(["seen": seen, "plain": plain]), as: UTF8.self)
      let plainPath = request.path.hasSuffix("/plain")
      var headers: HTTPHeaders =
        plainPath
        ? [:]
        : [
          "X-Seen": Self.percentEncoded(seen),
          "X-Seen-Lower": Self.percentEncoded(seen, lower: true),
          "X-Plain": Self.percentEncoded(plain),
        ]
      if cacheable { headers["Cache-Control"] = "max-age=600" }
      let body =
        plainPath
        ? "nothing echoed"
        : json + " " + Self.percentEncoded(seen) + " " + Self.percentEncoded(plain)
      try await response.send(status: status, headers: headers, text: body)
    }
  }

  private func configuration(printed: Locked<[String]>) -> HTTPClient.Configuration {
    var configuration = HTTPClient.Configuration()
    configuration.headers = ["Authorization": "Bearer \(token)", "X-Visible": visible]
    configuration.middleware = [
      LoggingMiddleware(level: .bodies) { line in printed.withLock { $0.append(line) } }
    ]
    configuration.observer = { event in printed.withLock { $0.append("\(event)") } }
    return configuration
  }

  @Test("an error body and fields echoing a token encoded show it in no error, log or event")
  func errorBody() async throws {
    let server = try echoing(status: 401)
    defer { server.stop() }
    let printed = Locked<[String]>([])
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration(printed: printed))
    let caught = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(path: "echo"))
    }
    let error = try #require(caught)
    // The server did echo it, escaped: `tok\/SECRET+42==` and `tok%2FSECRET%2B42%3D%3D`.
    let body = String(decoding: error.response?.body ?? Data(), as: UTF8.self)
    #expect(body.contains(#"tok\/SECRET"#) && body.contains("tok%2FSECRET"))
    let texts = error.printedForms + printed.withLock { $0 }
    for text in texts {
      #expect(!text.contains("SECRET"), "\(text)")
    }
    // The good-path twin: a value that is no credential shows, in each form.
    #expect("\(error)".contains(#"plain\/value+1=="#), "\(error)")
    #expect("\(error)".contains("plain%2Fvalue%2B1%3D%3D"), "\(error)")
    #expect(printed.withLock { $0.contains { $0.contains("X-Plain: plain%2Fvalue%2B1%3D%3D") } })
  }

  @Test("an answer echoing a token encoded is kept in memory only, never on disk")
  func cacheFile() async throws {
    let server = try echoing(status: 200, cacheable: true)
    defer { server.stop() }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-encoded-echo-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let cache = try HTTPCache(directory: directory)
    var configuration = configuration(printed: Locked([]))
    configuration.cache = cache
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    #expect(try await client.send(Request<String>(path: "echo")).contains("tok%2FSECRET"))
    #expect(cache.diskUsage == 0)
    // The good-path twin: an answer without it is written to disk.
    #expect(try await client.send(Request<String>(path: "plain")) == "nothing echoed")
    #expect(cache.diskUsage > 0)
  }
}
