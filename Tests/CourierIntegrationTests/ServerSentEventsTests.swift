import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite("Server-Sent Events with client.events(_:)", .timeLimit(.minutes(1)))
struct ServerSentEventsTests {
  private static let eventStream: HTTPHeaders = ["Content-Type": "text/event-stream"]

  @Test("a stream dripped one byte at a time parses into exactly the events sent")
  func dripped() async throws {
    let wire =
      "\u{FEFF}: comment\r\nevent: delta\r\ndata: {\"text\":\"Hé\"}\r\n\r\n"
      + "id: 7\ndata: line one\ndata: line two\n\nretry: 10\rdata: last\r\r"
    let loopback = try Loopback { _, response in
      try await response.writeHead(headers: Self.eventStream)
      for byte in wire.utf8 { try await response.write(Data([byte])) }
      try await response.finish()
    }
    defer { loopback.stop() }
    var events: [ServerSentEvent] = []
    for try await event in loopback.client.events(Request<Data>(path: "chat"), reconnection: .never)
    {
      events.append(event)
    }
    #expect(
      events == [
        ServerSentEvent(event: "delta", data: #"{"text":"Hé"}"#),
        ServerSentEvent(data: "line one\nline two", id: "7"),
        ServerSentEvent(data: "last", id: "7"),
      ])
    struct Delta: Decodable { var text: String }
    #expect(try events[0].decode(Delta.self).text == "Hé")
  }

  @Test("reconnects after the stream ends, sending Last-Event-ID, until a 204")
  func reconnects() async throws {
    let seen = Locked<[String]>([])
    let loopback = try Loopback { request, response in
      let connection = seen.withLock { seen in
        seen.append(request.headers["Last-Event-ID"] ?? "-")
        return seen.count
      }
      #expect(request.headers["Accept"] == "text/event-stream")
      switch connection {
      case 1:
        try await response.send(headers: Self.eventStream, text: "retry: 0\nid: 1\ndata: one\n\n")
      case 2:
        response.closeConnection()  // dropped before any event: another reconnection
      case 3:
        try await response.send(headers: Self.eventStream, text: "id: 2\ndata: two\n\n")
      default:
        try await response.send(status: 204)
      }
    }
    defer { loopback.stop() }
    var data: [String] = []
    // After the dropped connection the policy's delay applies whatever `retry:` said.
    for try await event in loopback.client.events(
      Request<Data>(path: "feed"), reconnection: ReconnectionPolicy(delay: .zero))
    {
      data.append(event.data)
    }
    #expect(data == ["one", "two"])
    #expect(seen.withLock { $0 } == ["-", "1", "1", "2"])
  }

  @Test("an id that is not ASCII goes back as UTF-8 in Last-Event-ID (WPT format-field-id-2)")
  func nonASCIIID() async throws {
    let seen = Locked<[String]>([])
    let loopback = try Loopback { request, response in
      let connection = seen.withLock { seen in
        seen.append(request.headers["Last-Event-ID"] ?? "-")
        return seen.count
      }
      if connection == 1 {
        try await response.send(
          headers: Self.eventStream, text: "id: …\tü\nretry: 0\ndata: hello\n\n")
      } else {
        try await response.send(status: 204)
      }
    }
    defer { loopback.stop() }
    var events: [ServerSentEvent] = []
    for try await event in loopback.client.events(
      Request<Data>(path: "feed"), reconnection: ReconnectionPolicy(delay: .zero))
    {
      events.append(event)
    }
    #expect(events == [ServerSentEvent(data: "hello", id: "…\tü")])
    #expect(seen.withLock { $0 } == ["-", "…\tü"])
  }

  @Test("a loop that leaves after the first event lets the connection go")
  func leftEarly() async throws {
    let body = EndlessBody(headers: Self.eventStream, first: "data: first\n\n", unit: "data: x\n\n")
    let loopback = try Loopback { _, response in try await body.send(response) }
    defer { loopback.stop() }
    var events: [String] = []
    for try await event in loopback.client.events(Request<Data>(path: "feed")) {
      events.append(event.data)
      break
    }
    #expect(events == ["first"])
    #expect(await body.clientLetGo())
    #expect(loopback.server.requestCount == 1)
  }

  @Test("a 404 or a response that is not an event stream throws, and is not retried")
  func refused() async throws {
    let loopback = try Loopback { request, response in
      if request.path.hasSuffix("missing") {
        try await response.send(status: 404, text: "gone")
      } else {
        try await response.send(json: "{}")
      }
    }
    defer { loopback.stop() }
    let notFound = await #expect(throws: HTTPError.self) {
      for try await _ in loopback.client.events(Request<Data>(path: "missing")) {}
    }
    #expect(notFound?.status == 404)
    let notEvents = await #expect(throws: HTTPError.self) {
      for try await _ in loopback.client.events(Request<Data>(path: "json")) {}
    }
    guard case .decodingFailed(let reason, _) = notEvents else {
      Issue.record("expected decodingFailed, got \(String(describing: notEvents))")
      return
    }
    #expect(reason.contains("text/event-stream"))
    #expect(loopback.server.requestCount == 2)
  }

  @Test("gives up after the policy's attempts when the server keeps failing")
  func givesUp() async throws {
    let loopback = try Loopback { _, response in response.closeConnection() }
    defer { loopback.stop() }
    let policy = ReconnectionPolicy(delay: .zero, maximumConsecutiveFailures: 3)
    await #expect(throws: HTTPError.self) {
      for try await _ in loopback.client.events(Request<Data>(path: "down"), reconnection: policy) {
      }
    }
    #expect(loopback.server.requestCount == 4)  // the first connection and 3 reconnections
  }

  @Test("cancelling the loop's task ends it at once with cancelled")
  func cancelled() async throws {
    let firstEvent = Signal()
    let loopback = try Loopback { _, response in
      try await response.writeHead(headers: Self.eventStream)
      try await response.write(Data("data: hello\n\n".utf8))
      await response.clientDisconnected()
    }
    defer { loopback.stop() }
    let client = loopback.client
    let task = Task {
      for try await _ in client.events(Request<Data>(path: "quiet")) { firstEvent.fire() }
    }
    await watched { await firstEvent.wait() }
    task.cancel()
    await expectCancelled(task)
  }

  @Test("only a 200 of media type text/event-stream is an event stream")
  func onlyTwoHundred() async throws {
    let loopback = try Loopback { request, response in
      if request.path.hasSuffix("created") {
        try await response.send(status: 201, headers: Self.eventStream, text: "data: x\n\n")
      } else {
        try await response.send(
          headers: ["Content-Type": "text/event-streams"], text: "data: x\n\n")
      }
    }
    defer { loopback.stop() }
    let created = await #expect(throws: HTTPError.self) {
      for try await _ in loopback.client.events(Request<Data>(path: "created")) {}
    }
    #expect(created?.status == 201)
    let lookalike = await #expect(throws: HTTPError.self) {
      for try await _ in loopback.client.events(Request<Data>(path: "lookalike")) {}
    }
    guard case .decodingFailed = lookalike else {
      Issue.record("expected decodingFailed, got \(String(describing: lookalike))")
      return
    }
  }

  @Test("without reconnection, a dropped connection throws; a stream the server ends just ends")
  func neverReconnect() async throws {
    let loopback = try Loopback { request, response in
      try await response.writeHead(headers: Self.eventStream)
      try await response.write(Data("data: one\n\n".utf8))
      if request.path.hasSuffix("drop") {
        response.closeConnection()
      } else {
        try await response.finish()
      }
    }
    defer { loopback.stop() }
    var ended: [String] = []
    for try await event in loopback.client.events(Request<Data>(path: "end"), reconnection: .never)
    {
      ended.append(event.data)
    }
    #expect(ended == ["one"])
    await #expect(throws: HTTPError.self) {
      for try await _ in loopback.client.events(Request<Data>(path: "drop"), reconnection: .never) {
      }
    }
    #expect(loopback.server.requestCount == 2)
  }

  /// A hostile or broken server: an event (one endless line, or data lines without the blank
  /// line that ends the event) that would grow in memory for as long as the server sends.
  @Test(
    "an event past maximumResponseBytes ends the stream with responseTooLarge, not retried",
    arguments: ["data: ", "data: x\n"])
  func endlessEvent(_ unit: String) async throws {
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 64 * 1024
    let body = EndlessBody(headers: Self.eventStream, first: "data: first\n\n", unit: unit)
    let loopback = try Loopback(configuration: configuration) { _, response in
      try await body.send(response)
    }
    defer { loopback.stop() }
    var events: [ServerSentEvent] = []
    var failure: HTTPError?
    do throws(HTTPError) {
      for try await event in loopback.client.events(Request<Data>(path: "feed")) {
        events.append(event)
      }
    } catch {
      failure = error
    }
    #expect(failure == .responseTooLarge(limit: 64 * 1024))
    #expect(events == [ServerSentEvent(data: "first")])
    #expect(await body.clientLetGo())
    #expect(loopback.server.requestCount == 1)
  }

  @Test("an event just under maximumResponseBytes arrives whole (the good path beside it)")
  func largeEvent() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 64 * 1024
    let data = String(repeating: "x", count: 60 * 1024)
    let loopback = try Loopback(configuration: configuration) { _, response in
      try await response.send(headers: Self.eventStream, text: "data: \(data)\n\n")
    }
    defer { loopback.stop() }
    var events: [ServerSentEvent] = []
    for try await event in loopback.client.events(Request<Data>(path: "feed"), reconnection: .never)
    {
      events.append(event)
    }
    #expect(events == [ServerSentEvent(data: data)])
  }
}
