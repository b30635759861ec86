import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The transports a multipart form is sent over, each in every run of the suite.
enum FormTransport: String, CaseIterable, CustomTestStringConvertible {
  #if canImport(FoundationNetworking)
    case curl
  #endif
  case urlSession

  var testDescription: String { rawValue }

  func make() -> any HTTPTransport {
    switch self {
    #if canImport(FoundationNetworking)
      case .curl: CurlTransport()
    #endif
    case .urlSession: URLSessionTransport()
    }
  }

  /// Whether the form goes out as a stream read while it is sent. Not over URLSession on
  /// Linux, which copies it into a temporary file first: FoundationNetworking sends a body
  /// stream chunked whatever its Content-Length, and the copy has a length.
  var streamsForms: Bool {
    #if canImport(FoundationNetworking)
      self == .curl
    #else
      true
    #endif
  }
}

/// A file changed between the computation of the request's length and its sending.
enum FileChange: String, CaseIterable, CustomTestStringConvertible {
  case grows, shrinks, disappears

  var testDescription: String { rawValue }

  func apply(to file: URL) throws {
    switch self {
    case .grows:
      let handle = try FileHandle(forWritingTo: file)
      defer { try? handle.close() }
      try handle.seekToEnd()
      try handle.write(contentsOf: Data("more".utf8))
    case .shrinks:
      let handle = try FileHandle(forWritingTo: file)
      defer { try? handle.close() }
      try handle.truncate(atOffset: 10)
    case .disappears:
      try FileManager.default.removeItem(at: file)
    }
  }

  /// The code of the transport error the request fails with.
  var code: URLError.Code {
    self == .disappears ? .cannotOpenFile : .requestBodyStreamExhausted
  }
}

/// Runs `change` on the file after the request was built (its length computed), before the
/// transport sends it.
struct ChangingFile: Middleware {
  let file: URL
  let change: FileChange

  func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
    -> HTTPResponse
  {
    do {
      try change.apply(to: file)
    } catch {
      Issue.record("could not change the file: \(error)")
    }
    return try await next(request)
  }
}

/// What the server saw of one request.
struct ReceivedForm: Sendable {
  var contentLength: String?
  var transferEncoding: String?
  var body = Data()
  /// Courier's temporary copies of the form, found while the request was being answered.
  var copies: [String] = []

  init() {}

  /// What `request` brought, with the `copies` found while it was being answered.
  init(_ request: LoopbackRequest, copies: [String]) {
    contentLength = request.headers["Content-Length"]
    transferEncoding = request.headers["Transfer-Encoding"]
    body = request.body
    self.copies = copies
  }
}

@Suite("Multipart forms streamed from disk", .timeLimit(.minutes(1)))
struct MultipartStreamingTests {
  /// A form of a text field and a file part of `file`, and its bytes on the wire, written out
  /// here by hand.
  private func form(with file: URL, bytes: Data) -> (MultipartForm, Data) {
    let boundary = "courier-test-\(UUID().uuidString)"
    var form = MultipartForm(boundary: boundary)
    form.add(name: "title", value: "Heat")
    form.add(name: "film", fileURL: file, contentType: "video/mp4")
    var wire = Data(
      ("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHeat\r\n"
        + "--\(boundary)\r\nContent-Disposition: form-data; name=\"film\"; "
        + "filename=\"\(file.lastPathComponent)\"\r\nContent-Type: video/mp4\r\n\r\n").utf8)
    wire.append(bytes)
    wire.append(Data("\r\n--\(boundary)--\r\n".utf8))
    return (form, wire)
  }

  private func upload(_ form: MultipartForm, path: String = "upload") -> Request<EmptyResponse> {
    Request(method: .post, path: path, body: .multipart(form))
  }

  @Test(
    "a 6 MiB file part arrives byte for byte with its Content-Length, not chunked, and no copy",
    arguments: FormTransport.allCases)
  func largeFilePart(_ transport: FormTransport) async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let bytes = patternBytes(6 * 1024 * 1024, from: 5)
    try await bytes.write(offPoolTo: scratch.file("film.bin"))
    let (form, wire) = form(with: scratch.file("film.bin"), bytes: bytes)
    let seen = Locked(ReceivedForm())
    let loopback = try Loopback(transport: transport.make()) { request, response in
      let copies = temporaryBodyFiles(of: form)
      seen.withLock { $0 = ReceivedForm(request, copies: copies) }
      try await response.send(status: 204)
    }
    defer { loopback.stop() }
    let built = try loopback.client.urlRequest(for: upload(form))
    #expect(built.value(forHTTPHeaderField: "Content-Length") == String(wire.count))

    try await loopback.client.send(upload(form))

    let received = seen.withLock { $0 }
    #expect(received.contentLength == String(wire.count))
    #expect(received.transferEncoding == nil)
    #expect(received.body == wire)
    // Read from the file as it is sent; URLSession on Linux sends a copy (PlatformNotes).
    #expect(received.copies.isEmpty == transport.streamsForms)
    #expect(temporaryBodyFiles(of: form).isEmpty)
    #expect(scratch.contents == ["film.bin"])
  }

  @Test(
    "a .file body is sent from the file itself, never a copy", arguments: FormTransport.allCases)
  func fileBody(_ transport: FormTransport) async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    // A start no other test's file has.
    let bytes = Data(UUID().uuidString.utf8) + patternBytes(3 * 1024 * 1024)
    try await bytes.write(offPoolTo: scratch.file("film.bin"))
    let seen = Locked(ReceivedForm())
    let loopback = try Loopback(transport: transport.make()) { request, response in
      let copies = temporaryBodyFiles(startingWith: bytes.prefix(36))
      seen.withLock { $0 = ReceivedForm(request, copies: copies) }
      try await response.send(status: 204)
    }
    defer { loopback.stop() }

    try await loopback.client.send(
      Request<EmptyResponse>(method: .put, path: "up", body: .file(scratch.file("film.bin"))))

    let received = seen.withLock { $0 }
    #expect(received.contentLength == String(bytes.count))
    #expect(received.transferEncoding == nil)
    #expect(received.body == bytes)
    #expect(received.copies.isEmpty)
  }

  @Test("a 307 sends the whole form again from its start", arguments: FormTransport.allCases)
  func redirectResends(_ transport: FormTransport) async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let bytes = patternBytes(300 * 1024, from: 9)
    try await bytes.write(offPoolTo: scratch.file("poster.bin"))
    let (form, wire) = form(with: scratch.file("poster.bin"), bytes: bytes)
    let bodies = Locked<[String: Data]>([:])
    let loopback = try Loopback(transport: transport.make()) { request, response in
      bodies.withLock { $0[request.path] = request.body }
      if request.path.hasSuffix("/upload") {
        try await response.send(status: 307, headers: ["Location": "again"])
      } else {
        try await response.send(status: 204)
      }
    }
    defer { loopback.stop() }

    try await loopback.client.send(upload(form))

    let seen = bodies.withLock { $0 }
    #expect(seen["/3/upload"] == wire)
    #expect(seen["/3/again"] == wire)
  }

  @Test(
    "a file that changes after the length was computed fails a form or a .file body; none is sent whole",
    arguments: FormTransport.allCases, FileChange.allCases)
  func fileChangesBeforeSending(_ transport: FormTransport, _ change: FileChange) async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let file = scratch.file("film.bin")
    let bytes = patternBytes(200 * 1024)
    let (form, _) = form(with: file, bytes: bytes)
    let answered = Locked(0)
    let loopback = try Loopback(
      configuration: HTTPClient.Configuration(
        middleware: [ChangingFile(file: file, change: change)]),
      transport: transport.make()
    ) { _, response in
      answered.withLock { $0 += 1 }
      try await response.send(status: 204)
    }
    defer { loopback.stop() }

    for body in [RequestBody.multipart(form), .file(file)] {
      try await bytes.write(offPoolTo: file)
      let error = await #expect(throws: HTTPError.self) {
        try await loopback.client.send(
          Request<EmptyResponse>(method: .post, path: "up", body: body))
      }

      #expect(error?.urlErrorCode == change.code)
      let reason = error.map(String.init(describing:)) ?? ""
      #expect(reason.contains(change == .disappears ? "could not be read" : "changed size"))
      #expect(reason.contains("film.bin"))
    }
    #expect(answered.withLock { $0 } == 0)
    #expect(temporaryBodyFiles(of: form).isEmpty)
  }

  /// A file is not read when the form is built, so only an in-memory part was checked for
  /// the delimiter: with a boundary of the caller's (a fixed one, in an open-source app), a
  /// file of a user's holding it was sent, and the server read a part of the file's text
  /// (`role=admin`) as a field of the form.
  @Test(
    "a file part holding the boundary delimiter fails the form, never read as parts",
    arguments: FormTransport.allCases, [0, 65_530, 150_000])
  func fileHoldingDelimiter(_ transport: FormTransport, at offset: Int) async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let file = scratch.file("notes.txt")
    // One per case: the cases run at once, and the check for a leftover copy of the body
    // finds a copy by its boundary (another case's copy, still being written, was found).
    let boundary = "fixed-boundary-\(transport.rawValue)-\(offset)"
    let injected = "--\(boundary)\r\nContent-Disposition: form-data; name=\"role\"\r\n\r\nadmin"
    var bytes = patternBytes(200 * 1024)
    bytes.replaceSubrange(
      offset..<offset + injected.utf8.count + 2,
      with: Data(((offset == 0 ? "" : "\r\n") + injected + (offset == 0 ? "\r\n" : "")).utf8))
    try await bytes.write(offPoolTo: file)
    let received = Locked<[Data]>([])
    let loopback = try Loopback(transport: transport.make()) { request, response in
      received.withLock { $0.append(request.body) }
      try await response.send(status: 204)
    }
    defer { loopback.stop() }
    var form = MultipartForm(boundary: boundary)
    form.add(name: "notes", fileURL: file)
    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(
        Request<EmptyResponse>(method: .post, path: "up", body: .multipart(form)))
    }
    #expect(error?.urlErrorCode == .requestBodyStreamExhausted)
    #expect(error.map(String.init(describing:))?.contains("--fixed-boundary") == true)
    #expect(received.withLock { $0 }.isEmpty)
    #expect(temporaryBodyFiles(of: form).isEmpty)
    // The good path: the same file under a random boundary arrives byte for byte.
    var random = MultipartForm()
    random.add(name: "notes", fileURL: file)
    _ = try await loopback.client.send(
      Request<EmptyResponse>(method: .post, path: "up", body: .multipart(random)))
    #expect(received.withLock { $0 }.first?.range(of: bytes) != nil)
  }

  /// Not over URLSession on Linux: cancelling its upload task mid-way crashes
  /// FoundationNetworking 6.3.1 now and then (a `try!` in its EasyHandle.swift on libcurl's
  /// error 43; 1 run in 60 here), a platform bug no test of Courier's can hold.
  @Test(
    "a form upload cancelled midway answers cancelled, and leaves no file open and no copy",
    arguments: FormTransport.allCases.filter(\.streamsForms))
  func cancelledMidway(_ transport: FormTransport) async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let file = scratch.file("film.bin")
    // Far more than the socket buffers hold: the server reads none of it.
    try await patternBytes(24 * 1024 * 1024).write(offPoolTo: file)
    let (form, _) = form(with: file, bytes: try Data(contentsOf: file))
    let started = Signal()
    let cancelled = Signal()
    let left = Signal()
    let server = try LoopbackServer(streamsRequestBodies: true) { request, _ in
      started.fire()
      // Reads nothing until the client has given up, then drains what came: the client's
      // end (after the bytes its kernel still held) shows the connection was let go.
      await cancelled.wait()
      do {
        for try await _ in request.bodyChunks {}
      } catch {}
      left.fire()
    }
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL, transport: transport.make())

    let sending = Task { () async -> HTTPError? in
      do throws(HTTPError) {
        try await client.send(upload(form))
        return nil
      } catch {
        return error
      }
    }
    await started.wait()
    sending.cancel()
    #expect(await sending.value == .cancelled)
    cancelled.fire()
    await left.wait()  // the connection is gone: the transfer has ended
    #expect(openDescriptors(to: file).isEmpty)
    #expect(temporaryBodyFiles(of: form).isEmpty)
  }

  /// This process's descriptors open on `file`.
  private func openDescriptors(to file: URL) -> [String] {
    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    let path = file.resolvingSymlinksInPath().path
    return fds.filter {
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path
    }
  }

  @Test(
    "a file that grows while it is being sent fails the request (a copy is not affected)",
    arguments: FormTransport.allCases)
  func fileGrowsWhileSending(_ transport: FormTransport) async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let file = scratch.file("film.bin")
    // Far more than the socket buffers hold: the server reads no byte of the body before
    // the file has grown, so the file cannot have been read to its end by then.
    let bytes = patternBytes(24 * 1024 * 1024)
    try await bytes.write(offPoolTo: file)
    let (form, wire) = form(with: file, bytes: bytes)
    let received = Locked<Data?>(nil)
    let server = try LoopbackServer(streamsRequestBodies: true) { request, response in
      try FileChange.grows.apply(to: file)
      var body = Data()
      for try await chunk in request.bodyChunks { body.append(chunk) }
      received.withLock { $0 = body }
      try await response.send(status: 204)
    }
    defer { server.stop() }
    let client = HTTPClient(
      baseURL: server.baseURL.appendingPathComponent("3"), transport: transport.make())

    let result = await Result { () async throws(HTTPError) in
      try await client.send(upload(form))
    }

    let failure: HTTPError? = if case .failure(let error) = result { error } else { nil }
    if transport.streamsForms {
      #expect(failure?.urlErrorCode == .requestBodyStreamExhausted)
      #expect(failure.map(String.init(describing:))?.contains("changed size") == true)
      #expect(received.withLock { $0 } == nil)
    } else {
      // The copy was taken before the head went out: it is sent whole, as it was.
      #expect(failure == nil)
      #expect(received.withLock { $0 } == wire)
    }
  }

  @Test(
    "a missing file is an invalid request, and nothing reaches the server",
    arguments: FormTransport.allCases)
  func missingFile(_ transport: FormTransport) async throws {
    let arrived = Locked(0)
    let loopback = try Loopback(transport: transport.make()) { _, response in
      arrived.withLock { $0 += 1 }
      try await response.send(status: 204)
    }
    defer { loopback.stop() }
    var form = MultipartForm()
    form.add(name: "title", value: "Heat")
    form.add(name: "film", fileURL: URL(fileURLWithPath: "/nonexistent/courier-film.bin"))

    let error = await #expect(throws: HTTPError.self) {
      try await loopback.client.send(upload(form))
    }

    #expect(error?.invalidRequestReason?.contains("not a readable file") == true)
    #expect(arrived.withLock { $0 } == 0)
  }
}

#if canImport(FoundationNetworking)
  @Suite("What URLSession on Linux does with a body stream")
  struct FoundationNetworkingBodyStreamTests {
    @Test(
      "a body stream goes out chunked beside its Content-Length, and is refused (why forms are copied)"
    )
    func chunkedDespiteLength() async throws {
      let reached = Locked(false)
      let server = try LoopbackServer { _, response in
        reached.withLock { $0 = true }
        try await response.send(status: 204)
      }
      defer { server.stop() }
      var request = URLRequest(url: server.baseURL.appendingPathComponent("form"))
      request.httpMethod = "POST"
      request.httpBodyStream = InputStream(data: Data("0123456789".utf8))
      request.setValue("10", forHTTPHeaderField: "Content-Length")
      let session = URLSession(configuration: URLSessionTransport.defaultSessionConfiguration())
      defer { session.finishTasksAndInvalidate() }
      let status = await withCheckedContinuation { (done: CheckedContinuation<Int?, Never>) in
        session.dataTask(with: request) { _, response, _ in
          done.resume(returning: (response as? HTTPURLResponse)?.statusCode)
        }.resume()
      }
      // The loopback server refuses a request with both Content-Length and Transfer-Encoding
      // (RFC 9112 §6.3). When this fails, FoundationNetworking sends a stream with its
      // length, and URLSession on Linux could stream forms as the other transports do.
      #expect(status == 400)
      #expect(reached.withLock { $0 } == false)
    }
  }
#endif
