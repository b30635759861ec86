import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// OAuth's own names for secrets that contain none of the usual words: a device flow's
/// `device_code` (with the client's id, it fetches the token once the user approves), PKCE's
/// `code_verifier`, and a signed JWT sent as `client_assertion` or `assertion`. A token
/// request and its answer show none of them in a log line or a curl command.
@Suite("OAuth's names for secrets", .timeLimit(.minutes(1)))
struct OAuthGrantSecretTests {
  @Test("a device flow's polling and answer show no device_code, verifier or assertion")
  func deviceFlow() async throws {
    let printed = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      LoggingMiddleware(level: .bodies) { line in printed.withLock { $0.append(line) } }
    ]
    let loopback = try Loopback(configuration: configuration) { _, response in
      try await response.send(
        json: #"{"device_code":"dc-SECRET-2","user_code":"WDJB-MJHT","#
          + #""verification_uri":"https://example.com/device","expires_in":1800}"#)
    }
    defer { loopback.stop() }
    let endpoint = Request<Data>(
      method: .post, path: "oauth/device",
      body: .form([
        "grant_type": "urn:ietf:params:oauth:grant-type:device_code", "client_id": "app-1",
        "device_code": "dc-SECRET-1", "code_verifier": "cv-SECRET-3",
        "client_assertion": "eyJ.cl-SECRET-4", "assertion": "eyJ.as-SECRET-5",
      ]))
    _ = try await loopback.client.send(endpoint)
    let texts = printed.withLock { $0 } + [try loopback.client.curlCommand(for: endpoint)]
    for text in texts {
      #expect(!text.contains("SECRET"), "\(text)")
    }
    // The good-path twin: the code a user is shown, and the rest, show.
    let all = texts.joined(separator: "\n")
    for shown in [#""user_code":"WDJB-MJHT""#, "client_id=app-1", #""expires_in":1800"#] {
      #expect(all.contains(shown), "\(all)")
    }
  }
}
