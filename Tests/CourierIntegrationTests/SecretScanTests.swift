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

@Suite("No secret in any log line, cURL string or error description", .timeLimit(.minutes(1)))
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
      RetryPolicy(maximumAttempts: 2, sleep: { _ throws(HTTPError) in }),
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
      printed.withLock { $0.append((try? client.cURL(for: endpoint)) ?? "") }
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
}
