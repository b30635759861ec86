import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite("Uploads with progress", .timeLimit(.minutes(1)))
struct UploadTests {
  /// A server that keeps the last body it got, and answers with its length and framing.
  private func receivingServer(keeping body: Locked<Data> = Locked(Data())) throws -> Loopback {
    try Loopback { request, response in
      body.withLock { $0 = request.body }
      try await response.send(
        encoding: Received(
          length: request.body.count, contentLength: request.headers["Content-Length"] ?? "",
          chunked: request.headers["Transfer-Encoding"] != nil))
    }
  }

  private struct Received: Codable, Equatable {
    var length: Int
    var contentLength: String
    var chunked: Bool
  }

  private func expected(_ data: Data) -> Received {
    Received(length: data.count, contentLength: String(data.count), chunked: false)
  }

  /// Runs an upload, returning its progress events and answer.
  private func run(_ transfer: Transfer<DecodedResponse<Received>>) async throws
    -> ([TransferProgress], Received?)
  {
    var progress: [TransferProgress] = []
    var answer: Received?
    for try await event in transfer {
      switch event {
      case .progress(let now): progress.append(now)
      case .completed(let response): answer = response.value
      }
    }
    return (progress, answer)
  }

  @Test("from Data: the server gets every byte, progress climbs to the total")
  func fromData() async throws {
    let body = Locked(Data())
    let loopback = try receivingServer(keeping: body)
    defer { loopback.stop() }
    let data = patternBytes(3_000_000)
    let (progress, answer) = try await run(
      loopback.client.upload(
        Request<Received>(method: .post, path: "up", body: .data(data))))
    #expect(answer == expected(data))
    #expect(
      zip(progress, progress.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
    #expect(progress.last == TransferProgress(completedBytes: 3_000_000, expectedBytes: 3_000_000))
  }

  @Test("from a file: streamed from disk with a Content-Length, progress climbs to the total")
  func fromFile() async throws {
    let body = Locked(Data())
    let loopback = try receivingServer(keeping: body)
    defer { loopback.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let data = patternBytes(5_000_000, from: 7)
    try await data.write(offPoolTo: scratch.file("video.bin"))
    let (progress, answer) = try await run(
      loopback.client.upload(
        Request<Received>(
          method: .put, path: "up", body: .file(scratch.file("video.bin"), contentType: "video/mp4")
        )
      ))
    #expect(answer == expected(data))
    #expect(body.withLock { $0 } == data)
    #expect(progress.last == TransferProgress(completedBytes: 5_000_000, expectedBytes: 5_000_000))
    #expect(scratch.contents == ["video.bin"])
  }

  @Test("a stream produced while it is sent (the DocC article's): every line arrives, in order")
  func fromStream() async throws {
    let body = Locked(Data())
    let loopback = try receivingServer(keeping: body)
    defer { loopback.stop() }
    let client = loopback.client
    let (chunks, writer) = AsyncStream.makeStream(of: Data.self)
    let request = Request<Received>(method: .post, path: "logs", body: .stream(chunks))
    async let sent: Received = client.send(request)
    for line in ["one", "two", "three"] { writer.yield(Data("\(line)\n".utf8)) }
    writer.finish()
    let answer = try await sent
    #expect(body.withLock { $0 } == Data("one\ntwo\nthree\n".utf8))
    #expect(answer.length == 14)
  }

  @Test("a stream of exactly its announced length goes out whole with that Content-Length")
  func streamOfItsLength() async throws {
    let body = Locked(Data())
    let loopback = try receivingServer(keeping: body)
    defer { loopback.stop() }
    let answer = try await loopback.client.send(
      Request<Received>(method: .post, path: "up", body: .stream(pieces(), length: 6)))
    #expect(answer == expected(Data("abbccc".utf8)))
  }

  @Test(
    "a stream shorter or longer than its announced length fails at once; the server gets no body",
    arguments: [5, 7] as [Int64])
  func streamNotOfItsLength(length: Int64) async throws {
    let body = Locked(Data())
    let loopback = try receivingServer(keeping: body)
    defer { loopback.stop() }
    // Before the fix, a short stream waited for this timeout (the server for the missing
    // bytes), and a long one went out cut to its length with a 200.
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(
        Request<Received>(
          method: .post, path: "up", body: .stream(pieces(), length: length),
          timeout: .seconds(20)))
    }
    #expect(error?.urlErrorCode == .requestBodyStreamExhausted)
    #expect(loopback.server.requestCount == 0)
  }

  private struct MicrophoneUnplugged: Error {}

  @Test("a stream that throws fails the request at once, carrying the stream's own error")
  func streamThatThrows() async throws {
    let loopback = try receivingServer()
    defer { loopback.stop() }
    let chunks = AsyncThrowingStream<Data, any Error> { continuation in
      continuation.yield(Data("first".utf8))
      continuation.finish(throwing: MicrophoneUnplugged())
    }
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(
        Request<Received>(
          method: .post, path: "up", body: .stream(chunks), timeout: .seconds(20)))
    }
    guard case .transport(let urlError) = error else {
      Issue.record("expected a transport error, got \(String(describing: error))")
      return
    }
    #expect(urlError.code == .requestBodyStreamExhausted)
    #expect(urlError.errorUserInfo[NSUnderlyingErrorKey] is MicrophoneUnplugged)
    #expect(error?.description.contains("MicrophoneUnplugged") == true)
  }

  /// The one-time chunks "a", "bb", "ccc" (6 bytes).
  private func pieces() -> AsyncStream<Data> {
    AsyncStream { continuation in
      for piece in ["a", "bb", "ccc"] { continuation.yield(Data(piece.utf8)) }
      continuation.finish()
    }
  }

  @Test("a caller's Content-Length that is not the body's is refused on every transport")
  func foreignLength() async throws {
    let body = Locked(Data())
    let loopback = try receivingServer(keeping: body)
    defer { loopback.stop() }
    // Before, URLSession on Linux sent it: the server took 5 bytes as the body and the other
    // 5 as the start of a next request, and with 20 it waited for the rest until the timeout.
    for length in ["5", "20"] {
      let error = await #expect(throws: HTTPError.self) {
        try await loopback.client.send(
          Request<Received>(
            method: .post, path: "up", headers: ["Content-Length": length],
            body: .data(Data("0123456789".utf8)), timeout: .seconds(20)))
      }
      #expect(error?.description.contains("Content-Length") == true)
    }
    #expect(loopback.server.requestCount == 0)
    let answer = try await loopback.client.send(
      Request<Received>(
        method: .post, path: "up", headers: ["Content-Length": "10"],
        body: .data(Data("0123456789".utf8))))
    #expect(answer == expected(Data("0123456789".utf8)))
  }

  @Test("a missing file is refused before anything is sent")
  func missingFile() async throws {
    let loopback = try receivingServer()
    defer { loopback.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.upload(
        Request<Received>(
          method: .put, path: "up", body: .file(URL(fileURLWithPath: "/nonexistent/x.bin")))
      ).finished()
    }
    #expect(error?.invalidRequestReason?.contains("not a readable file") == true)
    #expect(loopback.server.requestCount == 0)
  }

  @Test("a file reached through a symbolic link is sent whole, with its target's length")
  func symlinkedFile() async throws {
    let body = Locked(Data())
    let loopback = try receivingServer(keeping: body)
    defer { loopback.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let data = patternBytes(300_000, from: 3)
    try await data.write(offPoolTo: scratch.file("photo.jpg"))
    try FileManager.default.createSymbolicLink(
      at: scratch.file("latest.jpg"), withDestinationURL: scratch.file("photo.jpg"))
    let (progress, answer) = try await run(
      loopback.client.upload(
        Request<Received>(method: .put, path: "up", body: .file(scratch.file("latest.jpg")))))
    #expect(answer == expected(data))
    #expect(body.withLock { $0 } == data)
    #expect(progress.last == TransferProgress(completedBytes: 300_000, expectedBytes: 300_000))
    var form = MultipartForm(boundary: "b")
    form.add(name: "photo", fileURL: scratch.file("latest.jpg"))
    _ = try await loopback.client.send(
      Request<Received>(method: .post, path: "up", body: .multipart(form)))
    #expect(body.withLock { $0 }.range(of: data) != nil)
    #expect(
      String(decoding: body.withLock { $0 }.prefix(200), as: UTF8.self).contains(
        "filename=\"latest.jpg\""))
  }

  @Test("a 0-byte file is sent with Content-Length 0; a directory is refused, nothing sent")
  func emptyFileAndDirectory() async throws {
    let loopback = try receivingServer()
    defer { loopback.stop() }
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    try Data().write(to: scratch.file("empty.bin"))
    let answer = try await loopback.client.send(
      Request<Received>(method: .put, path: "up", body: .file(scratch.file("empty.bin"))))
    #expect(answer == expected(Data()))
    #expect(loopback.server.requestCount == 1)
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.upload(
        Request<Received>(method: .put, path: "up", body: .file(scratch.url))
      ).finished()
    }
    #expect(error?.invalidRequestReason?.contains("not a readable file") == true)
    #expect(loopback.server.requestCount == 1)
  }

  @Test("on the stub transport: one progress event for the whole body, then the answer")
  func onStub() async throws {
    let stub = StubTransport().on(
      .post, "/up", .json(#"{"length":3,"contentLength":"3","chunked":false}"#))
    let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: stub)
    let (progress, answer) = try await run(
      client.upload(Request<Received>(method: .post, path: "up", body: .data(Data([1, 2, 3])))))
    #expect(progress == [TransferProgress(completedBytes: 3, expectedBytes: 3)])
    #expect(answer?.length == 3)
  }
}
