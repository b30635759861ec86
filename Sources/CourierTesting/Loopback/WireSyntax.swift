import Courier
import Foundation

/// HTTP/1.1 syntax that both sides read: the loopback server's request parser, and the
/// response parser with which ``StubTransport`` reads a handler's answer in memory.
enum WireSyntax {
  /// How a message's body is delimited.
  enum Framing: Sendable, Equatable {
    case length(Int)
    case chunked
  }

  /// The index of the CR in the first CRLF at or after `start`, or nil if none has arrived.
  /// A bare LF is malformed.
  static func lineEnd(in buffer: [UInt8], from start: Int) throws(LoopbackError) -> Int? {
    guard start < buffer.count, let newline = buffer[start...].firstIndex(of: lf) else {
      return nil
    }
    guard newline > start, buffer[newline - 1] == cr else {
      throw LoopbackError("line not ended by CRLF")
    }
    return newline - 1
  }

  /// The header fields of a head's lines after the start line.
  static func headers(_ lines: ArraySlice<ArraySlice<UInt8>>) throws(LoopbackError)
    -> HTTPHeaders
  {
    var headers = HTTPHeaders()
    for line in lines {
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
    return headers
  }

  /// The framing `headers` declare, or nil when they declare none.
  static func framing(of headers: HTTPHeaders) throws(LoopbackError) -> Framing? {
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
    guard let value = values.first else { return nil }
    guard values.count == 1, (1...15).contains(value.utf8.count),
      value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let length = Int(value)
    else { throw LoopbackError("bad Content-Length \(lengths.joined(separator: ", "))") }
    return .length(length)
  }

  /// The size of a chunk from its size line (extensions after `;` ignored).
  static func chunkSize(_ line: ArraySlice<UInt8>) throws(LoopbackError) -> Int {
    let field = line.prefix { $0 != 0x3B && $0 != space && $0 != tab }
    guard (1...15).contains(field.count), let size = Int(text(field), radix: 16) else {
      throw LoopbackError("bad chunk size \"\(text(line))\"")
    }
    return size
  }

  static func text(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
  }

  /// The comma-separated, trimmed, lowercased elements of a header value.
  static func tokens(_ value: String) -> [String] {
    value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
      .filter { !$0.isEmpty }
  }

  /// Whether `byte` may appear in a method or header name (an RFC 9110 `tchar`).
  static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    // Digits and letters.
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
    // ! # $ % & ' * + - . ^ _ ` | ~
    case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E...0x60, 0x7C, 0x7E: true
    default: false
    }
  }

  private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    let isBlank: (UInt8) -> Bool = { $0 == space || $0 == tab }
    guard let first = bytes.firstIndex(where: { !isBlank($0) }),
      let last = bytes.lastIndex(where: { !isBlank($0) })
    else { return [] }
    return bytes[first...last]
  }

  static let cr: UInt8 = 0x0D
  static let lf: UInt8 = 0x0A
  static let space: UInt8 = 0x20
  static let tab: UInt8 = 0x09
}

private let cr = WireSyntax.cr
private let lf = WireSyntax.lf
private let space = WireSyntax.space
private let tab = WireSyntax.tab
