import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A server that goes quiet mid-body must not hold a request forever, whatever its kind and
/// although it has no deadline. Each stalled server waits for the client to go away, so a
/// missing idle timeout shows as a watchdog failure, never as a slow pass. That activity
/// moves the timeout on is tested without a clock, in DataTaskCallTests: on a busy 2-core
/// machine a paced server here can itself stall for seconds.
@Suite("The idle timeout ends any request whose server goes quiet", .timeLimit(.minutes(1)))
struct IdleTimeoutTests {
  static let idle = Duration.milliseconds(300)

  /// Sends a head announcing 1,000 bytes and 10 of them, then nothing until the client
  /// leaves, which fires `left`.
  static func stalling(left: Signal = Signal()) throws -> LoopbackServer {
    try LoopbackServer { _, response in
      try await response.writeHead(contentLength: 1000)
      try await response.write(Data("0123456789".utf8))
      await response.clientDisconnected()
      left.fire()
    }
  }

  /// A client with no deadline of its own and a short idle timeout.
  static func client(_ server: LoopbackServer, transport: (any HTTPTransport)? = nil)
    -> HTTPClient
  {
    var configuration = HTTPClient.Configuration()
    configuration.timeout = nil
    configuration.idleTimeout = idle
    return HTTPClient(baseURL: server.baseURL, configuration: configuration, transport: transport)
  }

  /// Expects `operation` to end with `timedOut` before the watchdog gives up.
  func expectTimedOut(
    _ label: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async throws -> Void
  ) async {
    let outcome = await watched(within: .seconds(45), sourceLocation: sourceLocation) {
      do {
        try await operation()
        return "finished"
      } catch {
        return "\(error)"
      }
    }
    #expect(outcome == "\(HTTPError.timedOut)", "\(label)", sourceLocation: sourceLocation)
  }

  @Test("it is on by default: 60 seconds for the client, inherited by transfers")
  func defaults() {
    #expect(HTTPClient.Configuration().idleTimeout == .seconds(60))
    #expect(TransferOptions().idleTimeout == nil)
  }

  /// `.seconds(Int64.max)`, meant as "never", crashed the process: on the timer's sleep
  /// (every transport) and in FoundationNetworking's milliseconds (URLSessionTransport).
  @Test("timeouts as long as a Duration holds are kept, and the request is answered")
  func longestTimeouts() async throws {
    let server = try LoopbackServer { _, response in try await response.send(text: "ok") }
    defer { server.stop() }
    let longest = Duration.seconds(Int64.max)
    let client = HTTPClient(
      baseURL: server.baseURL,
      configuration: HTTPClient.Configuration(timeout: longest, idleTimeout: longest))
    #expect(try await client.send(Request<String>(path: "x")) == "ok")
    var streamed = Data()
    let options = TransferOptions(timeout: longest, idleTimeout: longest)
    for try await chunk in try await client.bytes(Request<Data>(path: "x"), options: options) {
      streamed.append(chunk)
    }
    #expect(streamed == Data("ok".utf8))
  }

  @Test("send with no deadline ends timedOut")
  func send() async throws {
    // (With URLSessionTransport, when the socket then closes is FoundationNetworking's
    // business: its cancellation can lag libcurl's read loop by seconds on a busy machine;
    // see the article "Security".)
    let server = try Self.stalling()
    defer { server.stop() }
    let client = Self.client(server)
    await expectTimedOut("send") { _ = try await client.send(Request<Data>(path: "x")) }
  }

  @Test("a server that never sends its head: send with no deadline ends timedOut")
  func headNeverComes() async throws {
    let server = try LoopbackServer { _, response in await response.clientDisconnected() }
    defer { server.stop() }
    let client = Self.client(server)
    await expectTimedOut("head") { _ = try await client.send(Request<Data>(path: "x")) }
  }

  @Test("a session of your own: ended too, from the task's byte counters")
  func borrowedSession() async throws {
    let server = try Self.stalling()
    defer { server.stop() }
    let own = OwnSession()
    defer { own.invalidate() }
    let client = Self.client(server, transport: own.transport)
    await expectTimedOut("borrowed") { _ = try await client.send(Request<Data>(path: "x")) }
  }

  @Test("a byte stream throws timedOut while being read")
  func bytes() async throws {
    let server = try Self.stalling()
    defer { server.stop() }
    let client = Self.client(server)
    // The head may come after the idle timeout on a busy machine: then `bytes` itself
    // throws it, which is as right.
    await expectTimedOut("bytes") {
      for try await _ in try await client.bytes(Request<Data>(path: "x")) {}
    }
  }

  @Test("a transfer's own idle timeout wins over the client's")
  func transferOption() async throws {
    let server = try Self.stalling()
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)  // 60 seconds
    await expectTimedOut("bytes") {
      let options = TransferOptions(idleTimeout: Self.idle)
      for try await _ in try await client.bytes(Request<Data>(path: "x"), options: options) {}
    }
  }

  /// URLSession times out a task after `timeoutInterval` seconds of silence, and the request
  /// carried the client's `timeout` there for every kind of request: a byte stream, which
  /// that timeout does not bound (its idle timeout does, 60 seconds here), ended `timedOut`
  /// after one second of silence over URLSessionTransport, and lived on over CurlTransport.
  @Test(
    "the client's timeout does not cut a stream that pauses within its idle timeout, or none",
    arguments: [.seconds(60), nil] as [Duration?])
  func streamOutlivesClientTimeout(idleTimeout: Duration?) async throws {
    let server = try LoopbackServer { _, response in
      try await response.writeHead(contentLength: 20)
      try await response.write(Data("0123456789".utf8))
      try await Task.sleep(for: .milliseconds(2500))  // the pause the test is about
      try await response.write(Data("abcdefghij".utf8))
    }
    defer { server.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.timeout = .seconds(1)
    configuration.idleTimeout = idleTimeout
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    let outcome = await watched(within: .seconds(45)) {
      do {
        var body = Data()
        for try await chunk in try await client.bytes(Request<Data>(path: "x")) {
          body.append(chunk)
        }
        return String(decoding: body, as: UTF8.self)
      } catch {
        return "\(error)"
      }
    }
    #expect(outcome == "0123456789abcdefghij")
  }

  @Test("a download ends timedOut and leaves no file")
  func download() async throws {
    let server = try Self.stalling()
    defer { server.stop() }
    let client = Self.client(server)
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    await expectTimedOut("download") {
      _ = try await client.download(Request<Data>(path: "x"), to: scratch.file("f")).finished()
    }
    #expect(scratch.contents.isEmpty)
  }

  @Test("an event stream reconnects after it, with Last-Event-ID, as after a drop")
  func events() async throws {
    // Every connection without Last-Event-ID gets event 1 and then silence; one that names
    // it gets a 204, which ends the sequence. The idle timeout covers the wait for a head
    // too, so on a busy machine any connection may idle out before its answer arrives and
    // is made again: what holds whatever the timing is the order of the IDs, checked below.
    let lastIDs = Locked<[String]>([])
    let server = try LoopbackServer { request, response in
      let lastID = request.headers["Last-Event-ID"] ?? "-"
      lastIDs.withLock { $0.append(lastID) }
      guard lastID == "-" else {
        try await response.send(status: 204)
        return
      }
      try await response.writeHead(headers: ["Content-Type": "text/event-stream"])
      try await response.write(Data("id: 1\ndata: first\n\n".utf8))
      await response.clientDisconnected()  // then silence
    }
    defer { server.stop() }
    let client = Self.client(server)
    let events = await watched(within: .seconds(45)) {
      var data: [String] = []
      let stream = client.events(
        Request<Data>(path: "feed"), reconnection: ReconnectionPolicy(delay: .milliseconds(1)))
      do {
        for try await event in stream { data.append(event.data) }
      } catch {
        data.append("\(error)")
      }
      return data
    }
    #expect(events == ["first"])
    // First without an ID until event 1 arrived, then with it, to the end (the 204).
    let ids = lastIDs.withLock { $0 }
    #expect(ids.first == "-")
    #expect(ids.last == "1")
    let firstWithID = ids.firstIndex(of: "1") ?? ids.endIndex
    #expect(ids[..<firstWithID].allSatisfy { $0 == "-" })
    #expect(ids[firstWithID...].allSatisfy { $0 == "1" })
  }
}
