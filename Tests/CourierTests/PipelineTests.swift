import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// Every kind of request goes one way — middleware, limits, transport — so the observer
/// hears of each, and the size limit holds on any transport.
@Suite("One pipeline for every kind of request")
struct PipelineTests {
  /// A client over `stub` whose observer records into `events`, and fires `ended` at each
  /// `finished` or `failed` event.
  func client(_ events: Locked<[HTTPEvent]>, _ stub: StubTransport, ended: Signal = Signal())
    -> HTTPClient
  {
    var configuration = HTTPClient.Configuration()
    configuration.observer = { event in
      events.withLock { $0.append(event) }
      switch event {
      case .finished, .failed: ended.fire()
      case .started, .waiting, .retrying, .measured, .cache: break
      }
    }
    return makeClient(transport: stub, configuration: configuration)
  }

  /// The events recorded, as `started`/`finished <status> <bytes>`/`failed` lines.
  func lines(_ events: Locked<[HTTPEvent]>) -> [String] {
    events.withLock { $0 }.map { event in
      switch event {
      case .started(let request): "started \(request.method.rawValue) \(request.url)"
      case .finished(_, let status, _, let bytes, _): "finished \(status) \(bytes)"
      case .failed(_, let error, _): "failed \(error.status.map(String.init) ?? "\(error)")"
      case .retrying: "retrying"
      case .waiting: "waiting"
      case .measured: "measured"
      case .cache(_, let status): "cache \(status)"
      }
    }
  }

  let body = Data(repeating: 7, count: 1000)

  @Test("the observer hears of a download, from start to finish")
  func downloadReported() async throws {
    let events = Locked<[HTTPEvent]>([])
    let stub = StubTransport().on(.get, "/file", StubResponse(body: body))
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-\(UUID())")
    defer { try? FileManager.default.removeItem(at: file) }
    _ = try await client(events, stub).download(Request<Data>(path: "file"), to: file).finished()
    #expect(
      lines(events) == [
        "started GET https://api.example.com/3/file", "measured", "finished 200 1000",
      ])
  }

  @Test("the observer hears of an upload, and of its failure")
  func uploadReported() async throws {
    let events = Locked<[HTTPEvent]>([])
    let stub = StubTransport()
      .on(.post, "/up", StubResponse(text: "ok"))
      .on(.post, "/down", StubResponse(status: 500))
    let client = client(events, stub)
    _ = try await client.upload(Request<String>(method: .post, path: "up", body: .data(body)))
      .finished()
    await #expect(throws: HTTPError.self) {
      _ = try await client.upload(Request<String>(method: .post, path: "down", body: .data(body)))
        .finished()
    }
    #expect(
      lines(events) == [
        "started POST https://api.example.com/3/up", "measured", "finished 200 2",
        "started POST https://api.example.com/3/down", "measured", "failed 500",
      ])
  }

  @Test("the observer hears of a byte stream once its body has been delivered")
  func bytesReported() async throws {
    let events = Locked<[HTTPEvent]>([])
    let stub = StubTransport().on(.get, "/s", .chunks([body, body]))
    let ended = Signal()
    let stream = try await client(events, stub, ended: ended).bytes(Request<Data>(path: "s"))
    var count = 0
    for try await chunk in stream { count += chunk.count }
    #expect(count == 2000)
    await watched { await ended.wait() }
    #expect(
      lines(events) == [
        "started GET https://api.example.com/3/s", "measured", "finished 200 2000",
      ])
  }

  @Test("the observer hears of each connection of an event stream")
  func eventsReported() async throws {
    let events = Locked<[HTTPEvent]>([])
    let stub = StubTransport().on(
      .get, "/sse",
      StubResponse(
        headers: ["Content-Type": "text/event-stream"], body: Data("data: hi\n\n".utf8)))
    let ended = Signal()
    var received: [String] = []
    for try await event in client(events, stub, ended: ended).events(
      Request<Data>(path: "sse"), reconnection: .never)
    {
      received.append(event.data)
    }
    #expect(received == ["hi"])
    await watched { await ended.wait() }
    #expect(
      lines(events) == [
        "started GET https://api.example.com/3/sse", "measured", "finished 200 10",
      ])
  }

  @Test("a byte stream over the size limit fails as it is read, on the stub too")
  func bytesLimit() async throws {
    let big = Data(repeating: 1, count: 100_000)
    let stub = StubTransport().on(.get, "/big", .chunks([big.prefix(600), big.dropFirst(600)]))
    let stream = try await makeClient(transport: stub).bytes(
      Request<Data>(path: "big"), options: TransferOptions(maximumBytes: 1000))
    var count = 0
    let error = await #expect(throws: HTTPError.self) {
      for try await chunk in stream { count += chunk.count }
    }
    guard case .responseTooLarge(1000) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(count <= 1000)
  }

  @Test("an upload's answer over the size limit fails, on the stub too; one within it passes")
  func uploadLimit() async throws {
    let stub = StubTransport()
      .on(.post, "/big", StubResponse(body: Data(repeating: 1, count: 100_000)))
      .on(.post, "/small", StubResponse(body: Data(repeating: 1, count: 1000)))
    let client = makeClient(transport: stub)
    let options = TransferOptions(maximumBytes: 1000)
    let error = await #expect(throws: HTTPError.self) {
      _ = try await client.upload(
        Request<Data>(method: .post, path: "big", body: .data(body)), options: options
      ).finished()
    }
    guard case .responseTooLarge(1000) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    let small = try await client.upload(
      Request<Data>(method: .post, path: "small", body: .data(body)), options: options
    ).finished()
    #expect(small.value.count == 1000)
  }

  @Test("a download over the size limit fails and leaves no file, on the stub too")
  func downloadLimit() async throws {
    let stub = StubTransport().on(.get, "/big", .chunks([body, body, body]))
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-\(UUID())")
    let error = await #expect(throws: HTTPError.self) {
      _ = try await makeClient(transport: stub).download(
        Request<Data>(path: "big"), to: file, options: TransferOptions(maximumBytes: 2500)
      ).finished()
    }
    guard case .responseTooLarge(2500) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(!FileManager.default.fileExists(atPath: file.path))
  }

  /// A transport that answers 100,000 bytes whatever the options say.
  struct CarelessTransport: HTTPTransport {
    func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
      -> TransportResponse
    {
      let (body, writer) = TransportResponseBody.makeStream { _ in }
      for _ in 0..<100 { try writer.write(Data(repeating: 1, count: 1000)) }
      writer.finish()
      return TransportResponse(head: HTTPResponse(status: 200, url: request.url), body: body)
    }
  }

  @Test("the client holds a transport that ignores the size limit to it, for every kind")
  func carelessTransport() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 1000
    let client = makeClient(transport: CarelessTransport(), configuration: configuration)
    let options = TransferOptions(maximumBytes: 1000)
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-\(UUID())")
    let attempts: [(String, @Sendable () async throws(HTTPError) -> Void)] = [
      (
        "send",
        { () async throws(HTTPError) in _ = try await client.send(Request<Data>(path: "a")) }
      ),
      (
        "bytes",
        { () async throws(HTTPError) in
          for try await _ in try await client.bytes(Request<Data>(path: "b"), options: options) {}
        }
      ),
      (
        "upload",
        { () async throws(HTTPError) in
          _ = try await client.upload(
            Request<Data>(method: .post, path: "u", body: .data(Data("x".utf8))), options: options
          ).finished()
        }
      ),
      (
        "download",
        { () async throws(HTTPError) in
          _ = try await client.download(Request<Data>(path: "d"), to: file, options: options)
            .finished()
        }
      ),
    ]
    for (kind, attempt) in attempts {
      do throws(HTTPError) {
        try await attempt()
        Issue.record("\(kind): no error")
      } catch {
        guard case .responseTooLarge(1000) = error else {
          Issue.record("\(kind): \(error)")
          continue
        }
      }
    }
    #expect(!FileManager.default.fileExists(atPath: file.path))
  }
}
