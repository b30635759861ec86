import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// A size limit is for the body asked for: an error answer is
/// ``HTTPError/unacceptableStatus(_:)`` with the start of its body whatever its length, as
/// the documentation promises, so a caller keeps the status it acts on (a 503 to retry).
@Suite("Error bodies past a transfer's size limit", .timeLimit(.minutes(1)))
struct ErrorBodyLimitTests {
  /// A server whose `/3/status/<code>` answers that status with `size` bytes of text,
  /// announced in `Content-Length` or chunked.
  private func server(
    size: Int, chunked: Bool, configuration: HTTPClient.Configuration = .init()
  ) throws -> Loopback {
    try Loopback(configuration: configuration) { request, response in
      let status = Int(request.path.split(separator: "/").last ?? "") ?? 500
      let text = Data(("error page " + String(repeating: "x", count: size)).utf8.prefix(size))
      let headers: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]
      if chunked {
        try await response.writeHead(status: status, headers: headers)
        try await response.write(text)
        try await response.finish()
      } else {
        try await response.send(status: status, headers: headers, body: text)
      }
    }
  }

  private let limited = TransferOptions(maximumBytes: 1_000)

  /// Was `responseTooLarge(limit: 1000)`: the `Content-Length` (or the chunks) of the error
  /// page was held to the limit of the file before its status was looked at.
  @Test(
    "a download answered 404 with a body over its limit throws unacceptableStatus, no file left",
    arguments: [false, true])
  func download(chunked: Bool) async throws {
    let loopback = try server(size: 5_000, chunked: chunked)
    defer { loopback.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.download(
        Request<Data>(path: "status/404"), to: scratch.file("x"), options: limited
      ).finished()
    }
    guard case .unacceptableStatus(let response) = error else {
      Issue.record("expected unacceptableStatus, got \(String(describing: error))")
      return
    }
    #expect(response.status == 404)
    #expect(response.body.count == 5_000)
    #expect(response.body.starts(with: Data("error page".utf8)))
    #expect(scratch.contents.isEmpty)
  }

  @Test(
    "a stream answered 503 with a body over its limit throws unacceptableStatus",
    arguments: [false, true])
  func stream(chunked: Bool) async throws {
    let loopback = try server(size: 5_000, chunked: chunked)
    defer { loopback.stop() }
    let error = await #expect(throws: HTTPError.self) {
      _ = try await loopback.client.bytes(Request<Data>(path: "status/503"), options: limited)
    }
    #expect(error?.status == 503)
    #expect(error?.response?.body.count == 5_000)
  }

  @Test("an error body is kept to its first 64 KiB, however long", arguments: [false, true])
  func cut(chunked: Bool) async throws {
    let loopback = try server(size: 3_000_000, chunked: chunked)
    defer { loopback.stop() }
    let error = await #expect(throws: HTTPError.self) {
      _ = try await loopback.client.bytes(Request<Data>(path: "status/500"), options: limited)
    }
    #expect(error?.status == 500)
    #expect(error?.response?.body.count == 64 * 1024)
  }

  /// Was `responseTooLarge(limit: 1000)` on every transport: a 503 to retry, a 500, became a
  /// size error the caller could not act on.
  @Test(
    "send answered 503 with a body over maximumResponseBytes throws unacceptableStatus with its start",
    arguments: [false, true])
  func send(chunked: Bool) async throws {
    let loopback = try server(
      size: 200_000, chunked: chunked,
      configuration: HTTPClient.Configuration(maximumResponseBytes: 1_000))
    defer { loopback.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(Request<Movie>(path: "status/503"))
    }
    guard case .unacceptableStatus(let response) = error else {
      Issue.record("expected unacceptableStatus, got \(String(describing: error))")
      return
    }
    #expect(response.status == 503)
    #expect(response.body.count == 64 * 1024)
    #expect(response.body.starts(with: Data("error page".utf8)))
  }

  @Test("send keeps an error body within maximumResponseBytes whole", arguments: [false, true])
  func sendWithinLimit(chunked: Bool) async throws {
    let loopback = try server(size: 100_000, chunked: chunked)
    defer { loopback.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(Request<Movie>(path: "status/404"))
    }
    #expect(error?.status == 404)
    #expect(error?.response?.body.count == 100_000)
  }

  @Test(
    "the good-path twin: a 200 over the limit is still responseTooLarge", arguments: [false, true])
  func acceptedOverLimit(chunked: Bool) async throws {
    let loopback = try server(size: 5_000, chunked: chunked)
    defer { loopback.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.download(
        Request<Data>(path: "status/200"), to: scratch.file("x"), options: limited
      ).finished()
    }
    #expect(error == .responseTooLarge(limit: 1_000))
    #expect(scratch.contents.isEmpty)
    let streamed = await #expect(throws: HTTPError.self) {
      let stream = try await loopback.client.bytes(
        Request<Data>(path: "status/200"), options: limited)
      for try await _ in stream {}
    }
    #expect(streamed == .responseTooLarge(limit: 1_000))
    let small = try server(
      size: 5_000, chunked: chunked,
      configuration: HTTPClient.Configuration(maximumResponseBytes: 1_000))
    defer { small.stop() }
    let sent = await #expect(throws: HTTPError.self) {
      try await small.client.send(Request<Data>(path: "status/200"))
    }
    #expect(sent == .responseTooLarge(limit: 1_000))
  }
}

@Suite("Error bodies cut for one caller of a shared request", .timeLimit(.minutes(1)))
struct SharedErrorBodyLimitTests {
  /// Without the rule, the caller that accepts a 404 got the first 64 KiB of a 200,000-byte
  /// body as its whole answer, silently: the call it joined was made by a caller that did not
  /// accept 404, for whom the body was cut.
  @Test("a caller that joined a request and accepts its error status gets responseTooLarge")
  func joinedCallerAcceptingStatus() async throws {
    let release = Gate()
    let arrived = Signal()
    let joined = Signal()
    var configuration = HTTPClient.Configuration(maximumResponseBytes: 100_000)
    configuration.observer = { event in
      if case .waiting(_, for: .identicalRequest) = event { joined.fire() }
    }
    let loopback = try Loopback(configuration: configuration) { _, response in
      arrived.fire()
      await release.wait()
      try await response.send(status: 404, body: Data(repeating: 7, count: 200_000))
    }
    defer { loopback.stop() }
    let client = loopback.client
    let first = Task { () async throws -> Data in
      try await client.send(Request<Data>(path: "a"))
    }
    await arrived.wait()
    let second = Task { () async throws -> Data in
      try await client.send(Request<Data>(path: "a", acceptableStatusCodes: [200, 404]))
    }
    await joined.wait()
    release.open()
    let refused = await first.result
    let accepting = await second.result
    #expect(loopback.server.requestCount == 1)
    guard case .failure(let error) = refused,
      case .unacceptableStatus(let response) = error as? HTTPError
    else {
      Issue.record("expected unacceptableStatus, got \(refused)")
      return
    }
    #expect(response.body.count == 64 * 1024)
    #expect(throws: HTTPError.responseTooLarge(limit: 100_000)) { try accepting.get() }
  }
}
