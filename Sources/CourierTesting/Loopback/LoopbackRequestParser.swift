import Courier
import Foundation

/// Reads HTTP/1.1 requests, one at a time, out of the bytes a connection receives.
///
/// Feed it bytes with `append(_:)` and call `nextRequest()` until it returns nil (more
/// bytes needed). A request it cannot read throws; the connection then answers 400.
struct LoopbackRequestParser: Sendable {
  /// A complete request, and whether the connection may carry another one after it.
  struct Parsed: Sendable {
    let request: LoopbackRequest
    let keepAlive: Bool
  }

  private enum Framing: Sendable {
    case length(Int)
    case chunked
  }

  /// A request head that has been read while its body is still arriving.
  private struct Head: Sendable {
    let method: String
    let target: String
    let headers: HTTPHeaders
    let keepAlive: Bool
    let framing: Framing
    let bodyStart: Int
  }

  /// The largest request head (request line and headers) accepted.
  static let maxHeadSize = 64 * 1024

  private var buffer: [UInt8] = []
  private var head: Head?
  private var continueWanted = false

  /// Adds bytes received from the connection.
  mutating func append(_ bytes: ArraySlice<UInt8>) {
    buffer.append(contentsOf: bytes)
  }

  /// The next complete request, or nil until more bytes arrive.
  mutating func nextRequest() throws(LoopbackError) -> Parsed? {
    if head == nil {
      guard let parsed = try parseHead() else { return nil }
      head = parsed
      continueWanted = parsed.headers["Expect"]?.lowercased() == "100-continue"
    }
    guard let head else { return nil }
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
    guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte),
      !parts[1].isEmpty, parts[1].allSatisfy({ $0 > space && $0 != 0x7F })
    else { throw LoopbackError("request line is not \"METHOD target HTTP/1.1\"") }
    let version = text(parts[2])
    guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
      throw LoopbackError("unsupported version \(version)")
    }

    var headers = HTTPHeaders()
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: 0x3A) else {
        throw LoopbackError("header without colon")
      }
      let name = line[..<colon]
      guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
        throw LoopbackError("bad header name \"\(text(name))\"")
      }
      let value = trimmed(line[(colon + 1)...])
      guard value.allSatisfy({ $0 == tab || ($0 >= space && $0 != 0x7F) }) else {
        throw LoopbackError("control character in header \(text(name))")
      }
      headers.add(text(name), text(value))
    }

    let connection = headers.values(for: "Connection").flatMap(tokens)
    let keepAlive =
      version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
    return Head(
      method: text(parts[0]), target: text(parts[1]), headers: headers, keepAlive: keepAlive,
      framing: try framing(of: headers), bodyStart: bodyStart)
  }

  private func framing(of headers: HTTPHeaders) throws(LoopbackError) -> Framing {
    let lengths = headers.values(for: "Content-Length")
    let encodings = headers.values(for: "Transfer-Encoding").flatMap(tokens)
    if !encodings.isEmpty {
      guard lengths.isEmpty else {
        throw LoopbackError("both Content-Length and Transfer-Encoding")
      }
      guard encodings == ["chunked"] else {
        throw LoopbackError("unsupported Transfer-Encoding \(encodings.joined(separator: ", "))")
      }
      return .chunked
    }
    let values = Set(
      lengths.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
        .map { $0.trimmingCharacters(in: .whitespaces) })
    guard let value = values.first else { return .length(0) }
    guard values.count == 1, (1...15).contains(value.utf8.count),
      value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let length = Int(value)
    else { throw LoopbackError("bad Content-Length \(lengths.joined(separator: ", "))") }
    return .length(length)
  }

  // MARK: - Chunked body

  /// The de-chunked body and the index just past it, or nil until it has all arrived.
  private func decodeChunked(from start: Int) throws(LoopbackError) -> (Data, Int)? {
    var chunks: [Range<Int>] = []
    var index = start
    while true {
      guard let sizeEnd = try lineEnd(from: index) else { return nil }
      // The size may carry extensions after ";" and whitespace before them.
      let sizeField = buffer[index..<sizeEnd].prefix { $0 != 0x3B && $0 != space && $0 != tab }
      guard (1...15).contains(sizeField.count), let size = Int(text(sizeField), radix: 16) else {
        throw LoopbackError("bad chunk size \"\(text(buffer[index..<sizeEnd]))\"")
      }
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

  /// The index of the CR in the first CRLF at or after `start`, or nil if none has arrived.
  /// A bare LF is malformed.
  private func lineEnd(from start: Int) throws(LoopbackError) -> Int? {
    guard start < buffer.count, let newline = buffer[start...].firstIndex(of: lf) else {
      return nil
    }
    guard newline > start, buffer[newline - 1] == cr else {
      throw LoopbackError("line not ended by CRLF")
    }
    return newline - 1
  }

  private func text(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
  }

  private func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    let isBlank: (UInt8) -> Bool = { $0 == space || $0 == tab }
    guard let first = bytes.firstIndex(where: { !isBlank($0) }),
      let last = bytes.lastIndex(where: { !isBlank($0) })
    else { return [] }
    return bytes[first...last]
  }

  /// The comma-separated, trimmed, lowercased elements of a header value.
  private func tokens(_ value: String) -> [String] {
    value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
      .filter { !$0.isEmpty }
  }

  /// Whether `byte` may appear in a method or header name (an RFC 9110 `tchar`).
  private func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    // Digits and letters.
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
    // ! # $ % & ' * + - . ^ _ ` | ~
    case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E...0x60, 0x7C, 0x7E: true
    default: false
    }
  }
}

private let cr: UInt8 = 0x0D
private let lf: UInt8 = 0x0A
private let space: UInt8 = 0x20
private let tab: UInt8 = 0x09
