import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A form body written by hand, as a careless user does: a raw space in a value (OAuth's
/// `scope=openid profile`) or a line break at its end. Its credential fields are the form's
/// still, in a log line and a curl command, though it is not strictly encoded.
@Suite("A form body written by hand", .timeLimit(.minutes(1)))
struct HandWrittenFormTests {
  @Test(
    "its client_secret shows in no log line or curl command; its other fields do",
    arguments: [
      "grant_type=client_credentials&client_secret=cs-SECRET-1&scope=openid profile",
      "grant_type=client_credentials&client_secret=cs-SECRET-1&scope=openid\n",
    ])
  func clientSecret(form: String) async throws {
    let printed = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      LoggingMiddleware(level: .bodies) { line in printed.withLock { $0.append(line) } }
    ]
    let loopback = try Loopback(configuration: configuration) { request, response in
      try await response.send(text: "\(request.body.count) bytes")
    }
    defer { loopback.stop() }
    let endpoint = Request<String>(
      method: .post, path: "oauth/token",
      body: .data(Data(form.utf8), contentType: "application/x-www-form-urlencoded"))
    #expect(try await loopback.client.send(endpoint) == "\(form.utf8.count) bytes")
    let texts = printed.withLock { $0 } + [try loopback.client.curlCommand(for: endpoint)]
    for text in texts {
      #expect(!text.contains("SECRET"), "\(text)")
    }
    // The good-path twin: the fields that are no credential show.
    let all = texts.joined(separator: "\n")
    #expect(all.contains("grant_type=client_credentials&client_secret=<redacted>&scope=openid"))
  }

  @Test("plain text with an equals sign and words before it is shown as it came")
  func plainText() async throws {
    let printed = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      LoggingMiddleware(level: .bodies) { line in printed.withLock { $0.append(line) } }
    ]
    let loopback = try Loopback(configuration: configuration) { _, response in
      try await response.send(text: "the session key = what you sent")
    }
    defer { loopback.stop() }
    _ = try await loopback.client.send(Request<String>(path: "note"))
    #expect(printed.withLock { $0.contains { $0.contains("the session key = what you sent") } })
  }
}
