import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

#if canImport(FoundationNetworking)
  /// `BackgroundSession` over the loopback server, on the client's default transport, where its
  /// transfers run in the process (Linux). On Apple platforms the same calls go to a background
  /// `URLSession`, which only an app can exercise (see the closing notes' Mac list). Each test
  /// has an identifier of its own: sessions share transfers by identifier, process-wide.
  @Suite("Background sessions", .timeLimit(.minutes(1)))
  struct BackgroundSessionTests {
    let identifier = "tests.\(UUID().uuidString)"

    /// The events of `session` until `count` transfers have ended.
    func events(_ session: BackgroundSession, untilEnded count: Int = 1) async -> [BackgroundEvent]
    {
      var seen: [BackgroundEvent] = []
      var ended = 0
      for await event in session.events {
        seen.append(event)
        if case .progress = event { continue }
        ended += 1
        if ended == count { break }
      }
      return seen
    }

    @Test("A download reports progress, then finishes with its file at the destination")
    func download() async throws {
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let body = patternBytes(300_000)
      let server = try LoopbackServer { _, response in
        try await response.writeHead(contentLength: body.count)
        for start in stride(from: 0, to: body.count, by: 50_000) {
          try await response.write(body[start..<min(start + 50_000, body.count)])
        }
      }
      defer { server.stop() }
      let session = BackgroundSession(
        identifier: identifier, client: HTTPClient(baseURL: server.baseURL))
      let transfer = try await session.download(
        Request<Data>(path: "trailer.mp4"), to: scratch.file("t.mp4"))
      #expect(transfer.kind == .download)
      #expect(transfer.file == scratch.file("t.mp4"))
      let seen = await events(session)
      #expect(seen.allSatisfy { $0.transfer == transfer })
      guard case .finished(_, let response) = seen.last else {
        Issue.record("\(seen)")
        return
      }
      #expect(response.status == 200)
      #expect(seen.contains { if case .progress = $0 { true } else { false } })
      #expect(try Data(contentsOf: scratch.file("t.mp4")) == body)
      #expect(await session.transfers().isEmpty)
    }

    @Test("An upload sends its file, reports progress, and finishes with the server's answer")
    func upload() async throws {
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let photo = scratch.file("photo.jpg")
      try patternBytes(200_000).write(to: photo)
      let server = try LoopbackServer { request, response in
        try await response.send(status: 201, text: "\(request.body.count) bytes")
      }
      defer { server.stop() }
      let session = BackgroundSession(
        identifier: identifier, client: HTTPClient(baseURL: server.baseURL))
      let transfer = try await session.upload(
        Request<String>(
          method: .post, path: "photos", body: .file(photo, contentType: "image/jpeg")))
      #expect(transfer.kind == .upload)
      let seen = await events(session)
      guard case .finished(_, let response) = seen.last else {
        Issue.record("\(seen)")
        return
      }
      #expect(response.status == 201)
      #expect(response.text == "200000 bytes")
      let sent = seen.compactMap { event -> TransferProgress? in
        if case .progress(_, let progress) = event { progress } else { nil }
      }
      #expect(sent.last?.completedBytes == 200_000)
    }

    @Test("A status outside the acceptable codes fails the transfer with unacceptableStatus")
    func refused() async throws {
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let server = try LoopbackServer { _, response in
        try await response.send(status: 404, text: "no such trailer")
      }
      defer { server.stop() }
      let session = BackgroundSession(
        identifier: identifier, client: HTTPClient(baseURL: server.baseURL))
      _ = try await session.download(Request<Data>(path: "missing"), to: scratch.file("m"))
      let seen = await events(session)
      guard case .failed(_, .unacceptableStatus(let response), _) = seen.last else {
        Issue.record("\(seen)")
        return
      }
      #expect(response.status == 404)
      #expect(scratch.contents.isEmpty)
    }

    @Test(
      "A session made again with the identifier lists the earlier one's transfer and gets its events"
    )
    func recreated() async throws {
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let gate = Gate()
      let server = try LoopbackServer { _, response in
        await gate.wait()
        try await response.send(text: "late")
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL)
      var first: BackgroundSession? = BackgroundSession(identifier: identifier, client: client)
      let transfer = try await #require(first).download(
        Request<Data>(path: "slow"), to: scratch.file("s"))
      first = nil  // a screen closed, a flow relaunched
      let again = BackgroundSession(identifier: identifier, client: client)
      #expect(await again.transfers() == [transfer])
      gate.open()
      let seen = await events(again)
      guard case .finished(let finished, _) = seen.last else {
        Issue.record("\(seen)")
        return
      }
      #expect(finished == transfer)
      #expect(try String(contentsOf: scratch.file("s"), encoding: .utf8) == "late")
    }

    @Test("A transfer's identity is Codable, maps back to its file, and holds no credential")
    func identity() async throws {
      var configuration = HTTPClient.Configuration()
      configuration.redactedNames = ["api_key"]
      let client = HTTPClient(
        baseURL: URL(string: "https://api.test")!, configuration: configuration,
        transport: StubTransport())
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let session = BackgroundSession(identifier: identifier, client: client)
      let transfer = try await session.download(
        Request<Data>(path: "trailer", query: ["api_key": "s3cret", "id": "42"]),
        to: scratch.file("t"))
      let saved = try JSONEncoder().encode(transfer)
      #expect(!String(decoding: saved, as: UTF8.self).contains("s3cret"))
      let restored = try JSONDecoder().decode(BackgroundTransfer.self, from: saved)
      #expect(restored == transfer)
      #expect(restored.file == scratch.file("t"))
      #expect(restored.url.contains("id=42"))
      session.cancel(transfer)
    }

    @Test("A download cut short fails with resume data, and a new download continues from it")
    func resumeData() async throws {
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let body = patternBytes(10_000)
      let ranges = Locked<[String]>([])
      let server = try LoopbackServer { request, response in
        guard let range = request.headers["Range"] else {
          try await response.writeHead(headers: ["ETag": "\"v1\""], contentLength: body.count)
          try await response.write(body.prefix(4_000))
          response.closeConnection()
          return
        }
        ranges.withLock { $0.append(range) }
        try await response.send(
          status: 206,
          headers: ["ETag": "\"v1\"", "Content-Range": "bytes 4000-9999/10000"],
          body: body.suffix(from: 4_000))
      }
      defer { server.stop() }
      let session = BackgroundSession(
        identifier: identifier, client: HTTPClient(baseURL: server.baseURL))
      let first = try await session.download(
        Request<Data>(path: "cut"), to: scratch.file("c"),
        options: TransferOptions(maximumResumeAttempts: 0))
      let seen = await events(session)
      guard case .failed(let failed, _, .partialFile(let partial)?) = seen.last else {
        Issue.record("\(seen)")
        return
      }
      #expect(failed == first)
      #expect(partial.bytes == 4_000)
      #expect(partial.validator == "\"v1\"")
      let again = try await session.download(
        Request<Data>(path: "cut"), to: scratch.file("c"), resumingFrom: .partialFile(partial))
      #expect(again.id != first.id)
      guard case .finished? = await events(session).last else {
        Issue.record("the resumed download did not finish")
        return
      }
      #expect(ranges.withLock { $0 } == ["bytes=4000-"])
      #expect(try Data(contentsOf: scratch.file("c")) == body)
      // Resume data whose partial file is gone is refused, sending nothing.
      await #expect(throws: HTTPError.self) {
        _ = try await session.download(
          Request<Data>(path: "cut"), to: scratch.file("c"), resumingFrom: .partialFile(partial))
      }
    }

    @Test("A destination that cannot be written when the body is done fails with cannotMoveFile")
    func unwritableDestination() async throws {
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let gate = Gate()
      let arrived = Signal()
      let server = try LoopbackServer { _, response in
        arrived.fire()
        await gate.wait()
        try await response.send(text: "trailer")
      }
      defer { server.stop() }
      let session = BackgroundSession(
        identifier: identifier, client: HTTPClient(baseURL: server.baseURL))
      _ = try await session.download(Request<Data>(path: "t"), to: scratch.file("t"))
      await arrived.wait()
      // Something else takes the destination meanwhile: a directory cannot be replaced.
      try FileManager.default.createDirectory(
        at: scratch.file("t"), withIntermediateDirectories: false)
      gate.open()
      let seen = await events(session)
      guard case .failed(_, .transport(let failure), _) = seen.last else {
        Issue.record("\(seen)")
        return
      }
      #expect(failure.code == .cannotMoveFile)
      #expect(scratch.contents == ["t"])  // no partial file left beside it
    }

    @Test("Cancelling a transfer fails it with cancelled and ends it")
    func cancel() async throws {
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let left = Signal()
      let server = try LoopbackServer { _, response in
        try await response.writeHead(contentLength: 1_000_000)
        try await response.write(patternBytes(10_000))
        await response.clientDisconnected()
        left.fire()
      }
      defer { server.stop() }
      let session = BackgroundSession(
        identifier: identifier, client: HTTPClient(baseURL: server.baseURL))
      let transfer = try await session.download(Request<Data>(path: "big"), to: scratch.file("b"))
      var events = session.events.makeAsyncIterator()
      guard case .progress? = await events.next() else {
        Issue.record("no progress first")
        return
      }
      session.cancel(transfer)
      var last = await events.next()
      while case .progress? = last { last = await events.next() }
      guard case .failed(let failed, .cancelled, _)? = last else {
        Issue.record("\(String(describing: last))")
        return
      }
      #expect(failed == transfer)
      #expect(await session.transfers().isEmpty)
      await left.wait()
    }

    @Test("What cannot go to the background is refused before anything is sent")
    func badInput() async throws {
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let server = try LoopbackServer { _, response in try await response.send(text: "?") }
      defer { server.stop() }
      let session = BackgroundSession(
        identifier: identifier, client: HTTPClient(baseURL: server.baseURL))
      func isInvalid(_ attempt: () async throws(HTTPError) -> BackgroundTransfer) async -> Bool {
        do {
          _ = try await attempt()
          return false
        } catch {
          if case .invalidRequest = error { return true }
          return false
        }
      }
      // An upload of data in memory, which cannot be sent again after a relaunch.
      #expect(
        await isInvalid { () async throws(HTTPError) in
          try await session.upload(
            Request<String>(method: .post, path: "u", body: .data(Data([1]))))
        })
      // An upload of a file that does not exist.
      #expect(
        await isInvalid { () async throws(HTTPError) in
          try await session.upload(
            Request<String>(method: .post, path: "u", body: .file(scratch.file("none"))))
        })
      // A download with a body; one to a directory that does not exist.
      #expect(
        await isInvalid { () async throws(HTTPError) in
          try await session.download(
            Request<Data>(method: .post, path: "d", body: .data(Data([1]))), to: scratch.file("d"))
        })
      #expect(
        await isInvalid { () async throws(HTTPError) in
          try await session.download(Request<Data>(path: "d"), to: scratch.file("no/such/dir"))
        })
      #expect(server.requestCount == 0)
      #expect(await session.transfers().isEmpty)
    }

    @Test(
      "The app delegate's plain completion handler is called once the events are buffered, unread"
    )
    func handOff() async throws {
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let server = try LoopbackServer { _, response in try await response.send(text: "done") }
      defer { server.stop() }
      let session = BackgroundSession(
        identifier: identifier, client: HTTPClient(baseURL: server.baseURL))
      let transfer = try await session.download(Request<Data>(path: "a"), to: scratch.file("a"))
      let called = Signal()
      // Nothing reads the events (a background launch need not): the handler comes all the same.
      await Self.application(session, handleEventsCompletionHandler: { called.fire() })
      await called.wait()
      let seen = await events(session)
      #expect(seen.last.map { if case .finished = $0 { true } else { false } } == true)
      #expect(seen.allSatisfy { $0.transfer == transfer })
    }

    @Test("A download given no maximumBytes is not held to the client's maximumResponseBytes")
    func downloadHasNoLimit() async throws {
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let body = patternBytes(40_000)
      let server = try LoopbackServer { _, response in try await response.send(body: body) }
      defer { server.stop() }
      var configuration = HTTPClient.Configuration()
      configuration.maximumResponseBytes = 10_000
      let session = BackgroundSession(
        identifier: identifier,
        client: HTTPClient(baseURL: server.baseURL, configuration: configuration))
      _ = try await session.download(Request<Data>(path: "big"), to: scratch.file("big"))
      let seen = await events(session)
      #expect(seen.last.map { if case .finished = $0 { true } else { false } } == true)
      #expect(try Data(contentsOf: scratch.file("big")) == body)
    }

    /// The article's app delegate method, as UIKit calls it on the main actor: its handler is
    /// a plain closure, neither `Sendable` nor main-actor isolated.
    @MainActor
    static func application(
      _ session: BackgroundSession,
      handleEventsCompletionHandler completionHandler: @escaping () -> Void
    ) {
      session.handleEvents { completionHandler() }
    }
  }

#endif

/// The hand-off's rule on the event hub itself, where "not yet" can be checked without a race.
@Suite("Background events")
struct BackgroundEventHubTests {
  @Test("The hand-off waits for every transfer's last event to be posted, not for it to be read")
  func handOff() async throws {
    let hub = BackgroundEventHub()
    let transfer = BackgroundTransfer(
      kind: .download, url: "https://api.test/a", file: URL(fileURLWithPath: "/tmp/a"))
    hub.started()
    let handedOff = Locked(false)
    let done = Signal()
    let waiting = Task {
      await hub.settled()
      handedOff.withLock { $0 = true }
      done.fire()
    }
    hub.post(.progress(transfer, TransferProgress(completedBytes: 1, expectedBytes: 2)))
    // The transfer has not ended: nothing has resumed the hand-off.
    #expect(!handedOff.withLock { $0 })
    hub.post(.finished(transfer, HTTPResponse(status: 200)), last: true)
    // Its last event is posted, unread: the hand-off goes ahead.
    await done.wait()
    #expect(handedOff.withLock { $0 })
    _ = await waiting.value
    // Both events still wait for their reader.
    #expect(await hub.next().map { if case .progress = $0 { true } else { false } } == true)
    #expect(await hub.next().map { if case .finished = $0 { true } else { false } } == true)
  }
}

extension BackgroundEventHubTests {
  /// A session whose events nobody reads (a user who only wants the files) while a large
  /// download reports its progress: the unread events stay a handful, not one a chunk, and a
  /// later reader gets each transfer's latest progress before its end.
  @Test("Unread progress is kept as each transfer's latest, not every report")
  func unreadProgressKeptLatest() async throws {
    let hub = BackgroundEventHub()
    let transfers = ["a", "b"].map {
      BackgroundTransfer(
        kind: .download, url: "https://api.test/\($0)", file: URL(fileURLWithPath: "/tmp/\($0)"))
    }
    for _ in transfers { hub.started() }
    for step in 1...100_000 {
      for transfer in transfers {
        hub.post(
          .progress(transfer, TransferProgress(completedBytes: Int64(step), expectedBytes: nil)))
      }
    }
    hub.post(.finished(transfers[0], HTTPResponse(status: 200)), last: true)
    hub.post(.progress(transfers[1], TransferProgress(completedBytes: 100_001, expectedBytes: nil)))
    hub.post(.finished(transfers[1], HTTPResponse(status: 200)), last: true)
    #expect(hub.unreadCount == 4)
    var read: [String] = []
    for _ in 0..<4 {
      switch await hub.next() {
      case .progress(let transfer, let progress)?:
        read.append("\(transfer.url.suffix(1)) \(progress.completedBytes)")
      case .finished(let transfer, _)?: read.append("\(transfer.url.suffix(1)) done")
      default: read.append("?")
      }
    }
    #expect(read == ["a 100000", "b 100001", "a done", "b done"])
    #expect(hub.unreadCount == 0)
  }

  @Test("A progress waiting behind many read events is still replaced by the next one")
  func unreadProgressAfterReads() async throws {
    let hub = BackgroundEventHub()
    let make = { (name: String) in
      BackgroundTransfer(
        kind: .download, url: "https://api.test/\(name)", file: URL(fileURLWithPath: "/tmp/x"))
    }
    let running = make("running")
    hub.started()
    for index in 0..<150 {
      hub.started()
      hub.post(.finished(make("\(index)"), HTTPResponse(status: 200)), last: true)
    }
    hub.post(.progress(running, TransferProgress(completedBytes: 1, expectedBytes: nil)))
    for _ in 0..<100 { _ = await hub.next() }
    hub.post(.progress(running, TransferProgress(completedBytes: 2, expectedBytes: nil)))
    #expect(hub.unreadCount == 51)
    for _ in 0..<50 { _ = await hub.next() }
    guard case .progress(let transfer, let progress)? = await hub.next() else {
      Issue.record("no progress last")
      return
    }
    #expect(transfer == running && progress.completedBytes == 2)
    hub.post(.progress(running, TransferProgress(completedBytes: 3, expectedBytes: nil)))
    #expect(hub.unreadCount == 1)
  }

  /// Apple's background sessions post a transfer's end without `last` (the hand-off count is
  /// the in-process runner's): an end still closes its transfer's unread progress.
  @Test("Progress never takes the place of one before its transfer's end")
  func progressNeverCrossesAnEnd() async throws {
    let hub = BackgroundEventHub()
    let transfer = BackgroundTransfer(
      kind: .download, url: "https://api.test/a", file: URL(fileURLWithPath: "/tmp/a"))
    hub.post(.progress(transfer, TransferProgress(completedBytes: 1, expectedBytes: nil)))
    hub.post(.finished(transfer, HTTPResponse(status: 200)))
    hub.post(.progress(transfer, TransferProgress(completedBytes: 2, expectedBytes: nil)))
    var read: [String] = []
    for _ in 0..<hub.unreadCount {
      switch await hub.next() {
      case .progress(_, let progress)?: read.append("\(progress.completedBytes)")
      case .finished?: read.append("done")
      default: read.append("?")
      }
    }
    #expect(read == ["1", "done", "2"])
  }

  @Test("Events read as they come are each delivered, progress included (the path beside it)")
  func readProgressDelivered() async throws {
    let hub = BackgroundEventHub()
    let transfer = BackgroundTransfer(
      kind: .download, url: "https://api.test/a", file: URL(fileURLWithPath: "/tmp/a"))
    hub.started()
    var seen: [Int64] = []
    for step in 1...3 {
      hub.post(
        .progress(transfer, TransferProgress(completedBytes: Int64(step), expectedBytes: nil)))
      if case .progress(_, let progress)? = await hub.next() {
        seen.append(progress.completedBytes)
      }
    }
    #expect(seen == [1, 2, 3])
  }
}
