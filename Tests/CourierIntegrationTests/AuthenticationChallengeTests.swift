import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A 401 with an authentication challenge reaches the caller at once. FoundationNetworking
/// 6.3.1 left a task suspended forever on an unanswered Basic challenge; each test would
/// then hang until its watchdog gives up (the client's 60-second timeout is longer).
@Suite("A 401 challenge is answered at once, never a hang", .timeLimit(.minutes(1)))
struct AuthenticationChallengeTests {
  static let challenges = [
    #"Basic realm="courier""#, #"Bearer realm="courier", Basic realm="courier""#,
    #"Digest realm="courier", nonce="abc""#, #"Bearer realm="courier""#,
  ]

  /// A server that challenges every request with `challenge`, unless it carries the token
  /// that `SecretProvider` gives once refreshed.
  func challenger(_ challenge: String) throws -> LoopbackServer {
    try LoopbackServer { request, response in
      if request.headers["Authorization"] == "Bearer bearer-SECRET-2" {
        try await response.send(text: "welcome")
      } else {
        try await response.send(
          status: 401, headers: ["WWW-Authenticate": challenge], text: "denied-body")
      }
    }
  }

  /// Expects `operation` to fail with a 401 and returns its response.
  @discardableResult
  func expect401(
    _ label: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async throws -> Void
  ) async -> HTTPResponse? {
    let outcome = await watched(within: .seconds(45), sourceLocation: sourceLocation) {
      do {
        try await operation()
        return HTTPError?.none
      } catch {
        return error as? HTTPError
      }
    }
    guard let error = outcome ?? nil, case .unacceptableStatus(let response) = error else {
      Issue.record("\(label): expected a 401, got \(String(describing: outcome))")
      return nil
    }
    #expect(response.status == 401, "\(label)", sourceLocation: sourceLocation)
    return response
  }

  @Test(
    "send: unacceptableStatus(401) with its body, for every kind of challenge",
    arguments: challenges)
  func send(challenge: String) async throws {
    let server = try challenger(challenge)
    defer { server.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [RetryPolicy(maximumAttempts: 3, clock: RecordingClock())]
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    let response = await expect401(challenge) {
      _ = try await client.send(Request<String>(path: "private"))
    }
    #expect(response?.text == "denied-body", "\(challenge)")
    #expect(server.requestCount == 1, "a 401 is not retried as if it were a timeout")
  }

  @Test("BearerAuthentication sees the 401, refreshes and succeeds", arguments: challenges)
  func bearerRefresh(challenge: String) async throws {
    let server = try challenger(challenge)
    defer { server.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [BearerAuthentication(provider: SecretProvider())]
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    let answer = await watched(within: .seconds(45)) {
      try? await client.send(Request<String>(path: "private"))
    }
    #expect(answer == "welcome", "\(challenge)")
  }

  @Test("downloads, byte streams, uploads and a session of your own get the 401 too")
  func transfers() async throws {
    let server = try challenger(#"Basic realm="courier""#)
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    await expect401("download") {
      _ = try await client.download(Request<Data>(path: "f"), to: scratch.file("f")).finished()
    }
    #expect(scratch.contents.isEmpty)
    await expect401("bytes") { _ = try await client.bytes(Request<Data>(path: "b")) }
    await expect401("upload") {
      _ = try await client.upload(
        Request<String>(method: .post, path: "u", body: .data(Data("x".utf8)))
      ).finished()
    }
    let own = OwnSession()
    defer { own.invalidate() }
    let borrowed = HTTPClient(
      baseURL: server.baseURL, transport: own.transport)
    await expect401("borrowed session") {
      _ = try await borrowed.send(Request<String>(path: "private"))
    }
  }
}
