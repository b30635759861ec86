import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Streaming bytes with client.bytes(_:)", .timeLimit(.minutes(1)))
struct ByteStreamTests {
  @Test("chunks reach the reader while the body is still being sent")
  func streams() async throws {
    try await streamsLive { $0 }
  }

  @Test("a transport made from a session configuration of your own streams as well")
  func ownConfigurationStreams() async throws {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.httpMaximumConnectionsPerHost = 4
    let transport = URLSessionTransport(configuration: configuration)
    try await streamsLive { HTTPClient(baseURL: $0.baseURL, transport: transport) }
  }

  /// A server that sends the second chunk only once the reader has the first: the reader
  /// of `client(loopback's client)` gets both only if the body streams.
  func streamsLive(_ client: (HTTPClient) -> HTTPClient) async throws {
    let firstRead = Gate()
    let loopback = try Loopback { _, response in
      try await response.writeHead(headers: ["Content-Type": "text/plain"])
      try await response.write(Data("first ".utf8))
      await firstRead.wait()  // the rest only after the reader has the first chunk
      try await response.write(Data("second".utf8))
      try await response.finish()
    }
    defer { loopback.stop() }
    let stream = try await client(loopback.client).bytes(Request<Data>(path: "live"))
    #expect(stream.response.status == 200)
    #expect(stream.response.headers["Content-Type"] == "text/plain")
    var received = Data()
    for try await chunk in stream {
      if received.isEmpty {
        #expect(chunk == Data("first ".utf8))
        firstRead.open()
      }
      received.append(chunk)
    }
    #expect(received == Data("first second".utf8))
  }

  @Test("lines split at LF, CRLF and CR, wherever the chunks break")
  func lines() async throws {
    let text = "alpha\nbeta\r\ngamma\rdelta\r\n\r\nlast"
    let loopback = try Loopback { _, response in
      try await response.writeHead()
      for byte in text.utf8 { try await response.write(Data([byte])) }
      try await response.finish()
    }
    defer { loopback.stop() }
    var lines: [String] = []
    for try await line in try await loopback.client.bytes(Request<Data>(path: "lines")).lines {
      lines.append(line)
    }
    #expect(lines == ["alpha", "beta", "gamma", "delta", "", "last"])
  }

  @Test("a 404 throws before the stream, with the error body")
  func notFound() async throws {
    let loopback = try Loopback { _, response in
      try await response.send(status: 404, text: "no such export")
    }
    defer { loopback.stop() }
    let error = await #expect(throws: HTTPError.self) {
      _ = try await loopback.client.bytes(Request<Data>(path: "missing"))
    }
    #expect(error?.status == 404)
    #expect(error?.response.map { String(decoding: $0.body, as: UTF8.self) } == "no such export")
  }

  @Test("a reader that falls behind: memory stays at the buffer size, the rest waits on disk")
  func slowReader() async throws {
    let size = 8 * 1024 * 1024
    let allSent = Signal()
    // URLSessionTransport's way (FoundationNetworking cannot pause a transfer); CurlTransport
    // pauses instead (CurlTransportTests).
    let loopback = try Loopback(transport: URLSessionTransport()) { _, response in
      try await response.sendPattern(size: size)
      allSent.fire()
    }
    defer { loopback.stop() }
    let bufferSize = 256 * 1024
    let stream = try await loopback.client.bytes(
      Request<Data>(path: "big"), options: TransferOptions(bufferSize: bufferSize))
    await watched { await allSent.wait() }  // the reader has not read a byte yet
    var count = 0
    var matches = true
    for try await chunk in stream {
      matches = matches && chunk == patternBytes(chunk.count, from: count)
      count += chunk.count
    }
    #expect(count == size)
    #expect(matches)
    guard case .stream(let reader) = stream.body.storage else {
      Issue.record("the body is not streamed")
      return
    }
    #expect(reader.buffer.peakMemoryBytes <= bufferSize)  // the rest went through the disk
  }

  @Test("breaking out of the loop closes the connection")
  func breakCloses() async throws {
    let disconnected = Signal()
    let loopback = try Loopback { _, response in
      try await response.writeHead()
      try await response.write(Data("one".utf8))
      await response.clientDisconnected()
      disconnected.fire()
    }
    defer { loopback.stop() }
    let stream = try await loopback.client.bytes(Request<Data>(path: "endless"))
    for try await _ in stream { break }
    await watched { await disconnected.wait() }  // while `stream` is still held
    #expect(stream.response.status == 200)
  }

  @Test("a stream dropped without being read closes the connection")
  func dropCloses() async throws {
    let disconnected = Signal()
    let loopback = try Loopback { _, response in
      try await response.writeHead()
      try await response.write(Data("one".utf8))
      await response.clientDisconnected()
      disconnected.fire()
    }
    defer { loopback.stop() }
    // The head only: the caller looks at the status and lets the stream go.
    let status = try await loopback.client.bytes(Request<Data>(path: "endless")).response.status
    #expect(status == 200)
    #expect(await watched { await disconnected.wait() } != nil)
  }

  @Test("as a hurried user: a middleware's stream read one chunk, let go; the next call runs")
  func hurriedThroughMiddleware() async throws {
    struct Counting: Middleware {
      let bytes: Locked<Int>
      func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
        -> HTTPResponse
      {
        var response = try await next(request)
        response.bodyStream = response.bodyStream?.mapChunks { [bytes] chunk in
          bytes.withLock { $0 += chunk.count }
          return chunk
        }
        return response
      }
    }
    let disconnected = Signal()
    let bytes = Locked(0)
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [Counting(bytes: bytes)]
    configuration.maximumConcurrentRequests = 1
    let loopback = try Loopback(configuration: configuration) { request, response in
      guard request.path.hasSuffix("endless") else { return try await response.send(text: "ok") }
      try await response.writeHead()
      try await response.write(Data("one".utf8))
      await response.clientDisconnected()
      disconnected.fire()
    }
    defer { loopback.stop() }
    for try await chunk in try await loopback.client.bytes(Request<Data>(path: "endless")) {
      #expect(chunk == Data("one".utf8))
      break
    }
    await watched { await disconnected.wait() }
    #expect(bytes.withLock { $0 } == 3)
    // The one permit came back with the stream.
    #expect(try await loopback.client.send(Request<String>(path: "next")) == "ok")
  }

  @Test("cancelling the reading task ends the read at once with cancelled")
  func cancelled() async throws {
    let firstChunk = Signal()
    let loopback = try Loopback { _, response in
      try await response.writeHead()
      try await response.write(Data("one".utf8))
      await response.clientDisconnected()
    }
    defer { loopback.stop() }
    let client = loopback.client
    let task = Task {
      for try await _ in try await client.bytes(Request<Data>(path: "endless")) {
        firstChunk.fire()
      }
    }
    await watched { await firstChunk.wait() }
    task.cancel()
    await expectCancelled(task)
  }

  /// A line is held whole before the loop sees it: a server that never ends one would grow
  /// it for as long as it sends.
  @Test(
    "a line past maximumResponseBytes ends the loop with responseTooLarge; the server sees it go")
  func endlessLine() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = 64 * 1024
    let body = EndlessBody(first: "first\n", unit: "x")
    let loopback = try Loopback(configuration: configuration) { _, response in
      try await body.send(response)
    }
    defer { loopback.stop() }
    var lines: [String] = []
    var failure: HTTPError?
    do throws(HTTPError) {
      for try await line in try await loopback.client.bytes(Request<Data>(path: "x")).lines {
        lines.append(line)
      }
    } catch {
      failure = error
    }
    #expect(failure == .responseTooLarge(limit: 64 * 1024))
    #expect(lines == ["first"])
    #expect(await body.clientLetGo())
    // The good path beside it: a long line under the limit, and the chunks of a stream with no
    // line ends at all, which only lines would hold.
    let long = String(repeating: "y", count: 60 * 1024)
    let fine = try Loopback(configuration: configuration) { _, response in
      try await response.send(body: Data("\(long)\nlast".utf8) + Data(count: 200 * 1024))
    }
    defer { fine.stop() }
    var read: [String] = []
    for try await line in try await fine.client.bytes(Request<Data>(path: "l")).lines {
      read.append(line)
      if read.count == 1 { break }
    }
    #expect(read == [long])
    var bytes = 0
    for try await chunk in try await fine.client.bytes(Request<Data>(path: "c")) {
      bytes += chunk.count
    }
    #expect(bytes == 60 * 1024 + 5 + 200 * 1024)
  }
}
