import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// An error body's credential fields are credentials in the error too: a validation error
/// that echoes the form it was sent (`client_secret`, `password`), or an answer holding a
/// token of the server's own (`refresh_token`), shows them in no error description, as the
/// log line of the same body does not.
@Suite("Credential fields of an error body", .timeLimit(.minutes(1)))
struct ErrorExcerptFieldTests {
  @Test("a JSON error body's credential fields are redacted in the error, its other fields not")
  func jsonFields() async throws {
    let printed = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.observer = { event in printed.withLock { $0.append("\(event)") } }
    let loopback = try Loopback(configuration: configuration) { request, response in
      let sent = String(decoding: request.body, as: UTF8.self)
      let secret = sent.contains("cs-SECRET-9") ? "cs-SECRET-9" : "-"
      try await response.send(
        status: 400,
        json: #"{"error":"invalid_client","client_id":"app-1","client_secret":"\#(secret)","#
          + #""refresh_token":"rt-SECRET-1","scope":"read write"}"#)
    }
    defer { loopback.stop() }
    let endpoint = Request<String>(
      method: .post, path: "token",
      body: .form(["client_id": "app-1", "client_secret": "cs-SECRET-9"]))
    let caught = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(endpoint)
    }
    let error = try #require(caught)
    let body = String(decoding: error.response?.body ?? Data(), as: UTF8.self)
    #expect(body.contains("cs-SECRET-9"))  // the body itself is left intact
    let texts = error.printedForms + printed.withLock { $0 }
    for text in texts {
      #expect(!text.contains("SECRET"), "\(text)")
    }
    // The good-path twin: the fields that are no credential show.
    let description = "\(error)"
    for field in [#""client_id":"app-1""#, #""error":"invalid_client""#, #""scope":"read write""#] {
      #expect(description.contains(field), "\(description)")
    }
  }

  @Test("a JSON error body without a credential field is shown as it came")
  func plainJSON() async throws {
    let loopback = try Loopback { _, response in
      try await response.send(status: 404, json: #"{"status": 404, "message": "no/such movie"}"#)
    }
    defer { loopback.stop() }
    let caught = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(Request<String>(path: "movie/0"))
    }
    let description = "\(try #require(caught))"
    #expect(
      description.hasSuffix(#": {"status": 404, "message": "no/such movie"}."#), "\(description)")
  }
}
