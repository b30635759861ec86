import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A request body's credential fields are the request's credentials: a server that echoes
/// one under another name (FastAPI's validation errors quote each bad field's `"input"`) or
/// in prose puts it in no error description, event or log line.
@Suite("A body's credential field, echoed", .timeLimit(.minutes(1)))
struct BodyFieldEchoTests {
  /// A client of a server that answers `status` with `answer(body)`, printing into `printed`.
  private func loopback(
    printed: Locked<[String]>, answer: @escaping @Sendable (String) -> String
  ) throws -> Loopback {
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      LoggingMiddleware(level: .bodies) { line in printed.withLock { $0.append(line) } }
    ]
    configuration.observer = { event in printed.withLock { $0.append("\(event)") } }
    return try Loopback(configuration: configuration) { request, response in
      try await response.send(
        status: 422, text: answer(String(decoding: request.body, as: UTF8.self)))
    }
  }

  private func texts(of error: HTTPError, _ printed: Locked<[String]>) -> [String] {
    return error.printedForms + printed.withLock { $0 }
  }

  @Test("a JSON password quoted as a validation error's input shows nowhere; the rest does")
  func validationInput() async throws {
    let printed = Locked<[String]>([])
    let loopback = try loopback(printed: printed) { body in
      let sent = body.contains("pw-SECRET-8") ? "pw-SECRET-8" : "-"
      return #"{"detail":[{"loc":["body","password"],"msg":"too weak","input":"\#(sent)"}]}"#
    }
    defer { loopback.stop() }
    let caught = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(
        Request<String>(
          method: .post, path: "users",
          body: .json(["username": "ann", "password": "pw-SECRET-8"])))
    }
    let error = try #require(caught)
    for text in texts(of: error, printed) {
      #expect(!text.contains("SECRET"), "\(text)")
    }
    // The good-path twin: the rest of the answer, and the fields that are no credential.
    #expect("\(error)".contains(#""msg":"too weak","input":"<redacted>""#), "\(error)")
    #expect(printed.withLock { $0.contains { $0.contains(#""username":"ann""#) } })
  }

  @Test("a form's password echoed in prose shows nowhere; the user name does")
  func formInProse() async throws {
    let printed = Locked<[String]>([])
    let loopback = try loopback(printed: printed) { body in
      let fields = Dictionary(
        body.split(separator: "&").map { pair in
          let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
          return (parts[0], (parts.count > 1 ? parts[1] : "").removingPercentEncoding ?? "")
        }, uniquingKeysWith: { first, _ in first })
      return "no account \(fields["username"] ?? "-") with password \(fields["password"] ?? "-")"
    }
    defer { loopback.stop() }
    let caught = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(
        Request<String>(
          method: .post, path: "login",
          body: .form(["username": "ann", "password": "pw SECRET/9"])))
    }
    let error = try #require(caught)
    for text in texts(of: error, printed) {
      #expect(!text.contains("SECRET"), "\(text)")
    }
    #expect("\(error)".contains("no account ann with password <redacted>"), "\(error)")
  }
}
