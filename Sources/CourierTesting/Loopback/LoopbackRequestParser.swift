import Courier
import Foundation

/// Reads HTTP/1.1 requests, one at a time, out of the bytes a connection receives.
///
/// Feed it bytes with `append(_:)` and call `nextRequest()` until it returns nil (more
/// bytes needed). A request it cannot read throws; the connection then answers 400.
struct LoopbackRequestParser: Sendable {
  /// A complete request (or, streaming bodies, its head), and whether the connection may
  /// carry another one after it.
  struct Parsed: Sendable {
    let request: LoopbackRequest
    let keepAlive: Bool
    /// The feed its body goes to as it arrives (``takeStreamedBody()``), when bodies stream.
    var feed: LoopbackRequestBody.Feed?
    /// Whether the client waits for `100 Continue` before sending the streamed body.
    var wantsContinue = false
  }

  /// A request head that has been read while its body is still arriving.
  private struct Head: Sendable {
    let method: String
    let target: String
    let headers: HTTPHeaders
    let keepAlive: Bool
    let framing: WireSyntax.Framing
    let bodyStart: Int
  }

  /// The largest request head (request line and headers) accepted.
  static let maxHeadSize = 64 * 1024

  private var buffer: [UInt8] = []
  private var head: Head?
  private var continueWanted = false
  /// Whether a request is handed over at its head, its body following as it arrives.
  let streamsBodies: Bool
  /// How much of the streamed body in progress is still to come.
  private var streaming: WireSyntax.Framing?

  init(streamsBodies: Bool = false) {
    self.streamsBodies = streamsBodies
  }

  /// Adds bytes received from the connection.
  mutating func append(_ bytes: ArraySlice<UInt8>) {
    buffer.append(contentsOf: bytes)
  }

  /// The next complete request, or nil until more bytes arrive.
  mutating func nextRequest() throws(LoopbackError) -> Parsed? {
    guard streaming == nil else { return nil }  // the body before must end first
    if head == nil {
      guard let parsed = try parseHead() else { return nil }
      head = parsed
      continueWanted = parsed.headers["Expect"]?.lowercased() == "100-continue"
    }
    guard let head else { return nil }
    if streamsBodies {
      buffer.removeFirst(head.bodyStart)
      self.head = nil
      streaming = head.framing == .length(0) ? nil : head.framing
      let feed = LoopbackRequestBody.Feed()
      if streaming == nil { feed.finish() }
      let request = LoopbackRequest(
        method: head.method, target: head.target, headers: head.headers, body: Data(),
        streamed: feed)
      defer { continueWanted = false }
      return Parsed(
        request: request, keepAlive: head.keepAlive, feed: feed,
        wantsContinue: continueWanted && streaming != nil)
    }
    let body: Data
    let end: Int
    switch head.framing {
    case .length(let length):
      guard buffer.count - head.bodyStart >= length else { return nil }
      end = head.bodyStart + length
      body = Data(buffer[head.bodyStart..<end])
    case .chunked:
      guard let (decoded, decodedEnd) = try decodeChunked(from: head.bodyStart) else { return nil }
      body = decoded
      end = decodedEnd
    }
    buffer.removeFirst(end)
    self.head = nil
    continueWanted = false
    let request = LoopbackRequest(
      method: head.method, target: head.target, headers: head.headers, body: body)
    return Parsed(request: request, keepAlive: head.keepAlive)
  }

  /// Whether the client waits for `100 Continue` before sending the body; true only once.
  mutating func takeContinueRequest() -> Bool {
    defer { continueWanted = false }
    return continueWanted && head != nil
  }

  /// Takes the bytes received after the last request read, for a connection handed over to
  /// another protocol; `nil` while a streamed body is still arriving.
  mutating func takeRemainder() -> [UInt8]? {
    guard streaming == nil else { return nil }
    defer { buffer = [] }
    return buffer
  }

  /// The bytes of the streamed body in progress that have arrived (de-chunked), and whether
  /// it has ended; `nil` when no body is streaming.
  mutating func takeStreamedBody() throws(LoopbackError) -> (Data, ended: Bool)? {
    guard let framing = streaming else { return nil }
    switch framing {
    case .length(let remaining):
      let count = min(remaining, buffer.count)
      let bytes = Data(buffer[..<count])
      buffer.removeFirst(count)
      streaming = remaining == count ? nil : .length(remaining - count)
      return (bytes, streaming == nil)
    case .chunked:
      var bytes = Data()
      while let sizeEnd = try lineEnd(from: 0) {
        let size = try WireSyntax.chunkSize(buffer[..<sizeEnd])
        if size == 0 {
          // Trailer fields, ignored, up to an empty line.
          var index = sizeEnd + 2
          while let end = try lineEnd(from: index) {
            if end == index {
              buffer.removeFirst(end + 2)
              streaming = nil
              return (bytes, true)
            }
            index = end + 2
          }
          return (bytes, false)
        }
        let start = sizeEnd + 2
        guard buffer.count >= start + size + 2 else { break }
        guard buffer[start + size] == cr, buffer[start + size + 1] == lf else {
          throw LoopbackError("chunk data not followed by CRLF")
        }
        bytes.append(contentsOf: buffer[start..<start + size])
        buffer.removeFirst(start + size + 2)
      }
      return (bytes, false)
    }
  }

  // MARK: - Head

  private mutating func parseHead() throws(LoopbackError) -> Head? {
    // A server should ignore empty lines before a request line (RFC 9112, 2.2).
    var skip = 0
    while skip + 1 < buffer.count, buffer[skip] == cr, buffer[skip + 1] == lf { skip += 2 }
    buffer.removeFirst(skip)

    var lines: [ArraySlice<UInt8>] = []
    var lineStart = 0
    while let end = try lineEnd(from: lineStart) {
      if end == lineStart {
        return try makeHead(lines, bodyStart: end + 2)
      }
      lines.append(buffer[lineStart..<end])
      lineStart = end + 2
    }
    guard buffer.count <= Self.maxHeadSize else {
      throw LoopbackError("request head larger than \(Self.maxHeadSize) bytes")
    }
    return nil
  }

  private func makeHead(_ lines: [ArraySlice<UInt8>], bodyStart: Int) throws(LoopbackError) -> Head
  {
    guard let requestLine = lines.first else { throw LoopbackError("missing request line") }
    let parts = requestLine.split(separator: space, omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(WireSyntax.isTokenByte),
      !parts[1].isEmpty, parts[1].allSatisfy({ $0 > space && $0 != 0x7F })
    else { throw LoopbackError("request line is not \"METHOD target HTTP/1.1\"") }
    let version = text(parts[2])
    guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
      throw LoopbackError("unsupported version \(version)")
    }

    let headers = try WireSyntax.headers(lines.dropFirst())

    let connection = headers.values(for: "Connection").flatMap(tokens)
    let keepAlive =
      version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
    return Head(
      method: text(parts[0]), target: text(parts[1]), headers: headers, keepAlive: keepAlive,
      framing: try WireSyntax.framing(of: headers) ?? .length(0), bodyStart: bodyStart)
  }

  // MARK: - Chunked body

  /// The de-chunked body and the index just past it, or nil until it has all arrived.
  private func decodeChunked(from start: Int) throws(LoopbackError) -> (Data, Int)? {
    var chunks: [Range<Int>] = []
    var index = start
    while true {
      guard let sizeEnd = try lineEnd(from: index) else { return nil }
      let size = try WireSyntax.chunkSize(buffer[index..<sizeEnd])
      index = sizeEnd + 2
      if size == 0 { break }
      guard buffer.count >= index + size + 2 else { return nil }
      guard buffer[index + size] == cr, buffer[index + size + 1] == lf else {
        throw LoopbackError("chunk data not followed by CRLF")
      }
      chunks.append(index..<index + size)
      index += size + 2
    }
    // Trailer fields, ignored, up to an empty line.
    while let end = try lineEnd(from: index) {
      let isEmptyLine = end == index
      index = end + 2
      if isEmptyLine {
        var body = Data(capacity: chunks.reduce(0) { $0 + $1.count })
        for chunk in chunks { body.append(contentsOf: buffer[chunk]) }
        return (body, index)
      }
    }
    return nil
  }

  // MARK: - Bytes

  private func lineEnd(from start: Int) throws(LoopbackError) -> Int? {
    try WireSyntax.lineEnd(in: buffer, from: start)
  }

  private func text(_ bytes: ArraySlice<UInt8>) -> String {
    WireSyntax.text(bytes)
  }

  private func tokens(_ value: String) -> [String] {
    WireSyntax.tokens(value)
  }
}

private let cr = WireSyntax.cr
private let lf = WireSyntax.lf
private let space = WireSyntax.space
