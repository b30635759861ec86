import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Bidirectional streaming over HTTP/1.1: the response is read while the request body is still
/// being produced, each chunk of the body produced only once the server has answered the one
/// before (the shape of swift-http-api-proposal's `testSpeakInterleave`).
@Suite("Interleaving a streamed body and a streamed response", .timeLimit(.minutes(1)))
struct InterleavedStreamingTests {
  /// Rounds of the conversation: the server speaks first, then answers each line of the body.
  static let rounds = 50

  /// A server that sends its head and a first line at once, then answers each line of the
  /// request body as it arrives, and ends its response when the body ends.
  static func conversationServer() throws -> LoopbackServer {
    try LoopbackServer(streamsRequestBodies: true) { request, response in
      try await response.writeHead(headers: ["Content-Type": "text/plain"])
      try await response.write(Data("hello\n".utf8))
      var pending = Data()
      for try await chunk in request.bodyChunks {
        pending.append(chunk)
        while let newline = pending.firstIndex(of: 10) {
          let line = String(decoding: pending[..<newline], as: UTF8.self)
          pending.removeSubrange(...newline)
          try await response.write(Data("heard \(line)\n".utf8))
        }
      }
      try await response.write(Data("bye\n".utf8))
      try await response.finish()
    }
  }

  /// The conversation through the public API: a body streamed from an `AsyncStream` that the
  /// reader of `client.bytes(_:)` feeds, one line for each line it reads.
  static func converse(with client: HTTPClient) async throws -> [String] {
    let (lines, producer) = AsyncStream<Data>.makeStream()
    let request = Request<Data>(
      method: .post, path: "talk", body: .stream(lines, contentType: "text/plain"))
    let stream = try await client.bytes(request)
    #expect(stream.response.status == 200)
    var heard: [String] = []
    var said = 0
    for try await line in stream.lines {
      heard.append(line)
      if said < rounds {
        said += 1
        producer.yield(Data("line \(said)\n".utf8))
      } else {
        producer.finish()
      }
    }
    producer.finish()
    return heard
  }

  static var expected: [String] {
    ["hello"] + (1...rounds).map { "heard line \($0)" } + ["bye"]
  }

  /// Rounds of `speakingServer()`: testSpeakInterleave has 1,000; 250 keep its shape and
  /// finish within the time limit on a loaded 2-core machine.
  static let speakingRounds = 250

  /// A server that speaks first and ends its response after `speakingRounds` one-byte chunks,
  /// each sent once the client has echoed the one before, without waiting for the body's end;
  /// the response has a `Content-Length`, or is chunked (as testSpeakInterleave's server's).
  static func speakingServer(chunked: Bool) throws -> LoopbackServer {
    try LoopbackServer(streamsRequestBodies: true) { request, response in
      try await response.writeHead(contentLength: chunked ? nil : speakingRounds)
      var echoes = request.bodyChunks.makeAsyncIterator()
      for _ in 0..<speakingRounds {
        try await response.write(Data("A".utf8))
        _ = try await echoes.next()
      }
      try await response.finish()
    }
  }

  #if canImport(FoundationNetworking)
    @Test(
      "over CurlTransport, a response ends for its reader while the body is still open (testSpeakInterleave)",
      arguments: [false, true])
    func curlResponseEndsFirst(chunked: Bool) async throws {
      let server = try Self.speakingServer(chunked: chunked)
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      let (echoes, producer) = AsyncStream<Data>.makeStream()
      let stream = try await client.bytes(
        Request<Data>(method: .post, path: "speak", body: .stream(echoes)))
      var received = Data()
      for try await chunk in stream {
        received.append(chunk)
        producer.yield(chunk)  // echoed back before the server sends the next
      }
      producer.finish()  // only once the response has ended, as testSpeakInterleave does
      #expect(received == Data(repeating: UInt8(ascii: "A"), count: Self.speakingRounds))
    }

    @Test(
      "over CurlTransport, each line of the body is sent once the answer to the last has been read")
    func curl() async throws {
      let server = try Self.conversationServer()
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      #expect(try await Self.converse(with: client) == Self.expected)
    }
  #endif

  #if canImport(FoundationNetworking)
    /// URLSessionTransport on Linux cannot converse: FoundationNetworking reads a body stream
    /// without waiting for it, so Courier gathers the body into a temporary file first, and
    /// the request leaves only once the body has ended (its response then comes whole).
    @Test("over URLSessionTransport on Linux, the request leaves only once the body has ended")
    func urlSessionOnLinuxSendsAfterTheBody() async throws {
      let bodyEnded = Locked(false)
      let endedOnArrival = Locked<Bool?>(nil)
      let server = try LoopbackServer(streamsRequestBodies: true) { request, response in
        endedOnArrival.withLock { $0 = bodyEnded.withLock { $0 } }
        var body = Data()
        for try await chunk in request.bodyChunks { body.append(chunk) }
        try await response.send(body: body)
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: URLSessionTransport())
      let (lines, producer) = AsyncStream<Data>.makeStream()
      let request = Request<Data>(method: .post, path: "talk", body: .stream(lines))
      async let answer = client.bytes(request)
      for round in 1...3 { producer.yield(Data("line \(round)\n".utf8)) }
      bodyEnded.withLock { $0 = true }
      producer.finish()
      var received = Data()
      for try await chunk in try await answer { received.append(chunk) }
      #expect(received == Data("line 1\nline 2\nline 3\n".utf8))
      #expect(endedOnArrival.withLock { $0 } == true)
    }
  #endif
}
