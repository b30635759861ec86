import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// Gives a fixed token; refreshing gives another secret one.
actor SecretProvider: CredentialProvider {
  private var current = "bearer-SECRET-1"
  func token() async throws(HTTPError) -> String { current }
  func refresh() async throws(HTTPError) -> String {
    current = "bearer-SECRET-2"
    return current
  }
}

@Suite("No secret in any log line, curl command or error description", .timeLimit(.minutes(1)))
struct SecretScanTests {
  let secrets = [
    "bearer-SECRET-1", "bearer-SECRET-2", "apikey-SECRET", "cookie-SECRET", "tenant-SECRET",
    "session-SECRET", "user-SECRET", "pass-SECRET", "form-SECRET",
  ]

  @Test("a run through every kind of outcome leaks none of the secrets")
  func scan() async throws {
    let loopback = try Loopback { request, response in
      switch request.path.split(separator: "/").last ?? "" {
      case "ok": try await response.send(json: #"{"ok":true}"#)
      case "refused":
        let fresh = request.headers["Authorization"] == "Bearer bearer-SECRET-2"
        try await response.send(status: fresh ? 200 : 401, text: "who are you")
      case "missing": try await response.send(status: 404, json: #"{"status_message":"nope"}"#)
      case "broken": try await response.send(status: 500, text: "internal")
      case "cut": response.closeConnection()
      case "slow": await response.clientDisconnected()
      default: try await response.send(json: "not json")
      }
    }
    defer { loopback.stop() }
    let printed = Locked<[String]>([])
    var configuration = HTTPClient.Configuration()
    configuration.headers = ["Cookie": "id=cookie-SECRET", "X-Tenant": "tenant-SECRET"]
    configuration.redactedNames = ["X-Tenant", "sid"]
    configuration.middleware = [
      RetryPolicy(maximumAttempts: 2, clock: RecordingClock()),
      BearerAuthentication(provider: SecretProvider()),
      APIKeyAuthentication(key: "apikey-SECRET", in: .query("api_key")),
      LoggingMiddleware(level: .bodies) { line in
        printed.withLock { $0.append(line) }
      },
    ]
    configuration.observer = { event in printed.withLock { $0.append("\(event)") } }
    let base = loopback.server.baseURL.absoluteString.replacingOccurrences(
      of: "http://", with: "http://user-SECRET:pass-SECRET@")
    let client = HTTPClient(baseURL: URL(string: base + "/3")!, configuration: configuration)

    func record(_ endpoint: Request<[String: Bool]>) async {
      do {
        let result = try await client.response(for: endpoint)
        printed.withLock { $0.append("\(result)") }
      } catch {
        printed.withLock { $0.append("\(error)") }
        printed.withLock { $0.append(error.localizedDescription) }
        if let response = error.response { printed.withLock { $0.append("\(response)") } }
        if case .transport(let urlError) = error { printed.withLock { $0.append("\(urlError)") } }
      }
    }

    let paths = ["ok", "refused", "missing", "broken", "cut", "slow", "garbage"]
    for (index, path) in paths.enumerated() {
      let endpoint = Request<[String: Bool]>(
        method: index == 0 ? .post : .get, path: "x/\(path)",
        query: ["sid": "session-SECRET", "page": 1],
        body: index == 0 ? .json(["session": "session-SECRET"]) : nil,
        timeout: .milliseconds(300))
      printed.withLock { $0.append((try? client.curlCommand(for: endpoint)) ?? "") }
      await record(endpoint)
    }
    // A form body with a password, sent and logged at .bodies.
    await record(
      Request<[String: Bool]>(
        method: .post, path: "x/ok", body: .form(["user": "ann", "password": "form-SECRET"])))
    let everything = printed.withLock { $0 }
    #expect(everything.count > 30)
    for line in everything {
      for secret in secrets {
        #expect(!line.contains(secret), "\(secret) leaked in: \(line)")
      }
    }
  }

  @Test("a server that echoes the request's credentials does not put them in descriptions")
  func echoedCredentials() async throws {
    // Echoes every header and the query into the body of a 400, and a header of it into a
    // response header, as many APIs do ("invalid key abc…").
    let loopback = try Loopback { request, response in
      let echoed = request.headers.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
      try await response.send(
        status: 400, headers: ["X-Echo": request.headers["X-Client-Id"] ?? "-"],
        text: "invalid request \(request.target) \(echoed)")
    }
    defer { loopback.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.headers = ["Cookie": "id=cookie-SECRET", "X-Tenant": "tenant-SECRET"]
    configuration.redactedNames = ["X-Tenant"]
    configuration.middleware = [
      BearerAuthentication(provider: SecretProvider()),
      APIKeyAuthentication(key: "apikey-SECRET", in: .query("api_key")),
      APIKeyAuthentication(key: "client-SECRET", in: .header("X-Client-Id")),
    ]
    let client = HTTPClient(
      baseURL: loopback.server.baseURL.appendingPathComponent("3"), configuration: configuration)
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    var errors: [HTTPError] = []
    do {
      _ = try await client.send(Request<String>(path: "x"))
    } catch { errors.append(error) }
    do {
      _ = try await client.download(Request<Data>(path: "x"), to: scratch.file("f")).finished()
    } catch { errors.append(error) }
    do {
      _ = try await client.bytes(Request<Data>(path: "x"))
    } catch { errors.append(error) }
    #expect(errors.count == 3)
    let all = [
      "bearer-SECRET-1", "apikey-SECRET", "client-SECRET", "cookie-SECRET", "tenant-SECRET",
    ]
    for error in errors {
      let texts = ["\(error)", error.localizedDescription, error.response.map { "\($0)" } ?? ""]
      #expect(texts[0].contains("invalid request"), "the body excerpt is still shown")
      #expect(texts[2].contains("X-Echo: <redacted>"), "an echoing header is scrubbed")
      for text in texts {
        for secret in all {
          #expect(!text.contains(secret), "\(secret) leaked in: \(text)")
        }
      }
      // The body itself is untouched, for callers that decode an API's error payload.
      #expect(error.response?.text?.contains("client-SECRET") == true)
    }
  }
}
