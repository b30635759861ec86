import Foundation

/// Reads an HTTP/1.1 response head a line at a time (RFC 9112 §4 and §5): the one parser of
/// response heads, for libcurl's header callback and for the WebSocket handshake, which reads
/// its answer off the socket itself. Lines are bytes without their line end.
///
/// - A status line is `HTTP/` and a version, a space, then three digits followed by a space or
///   the line's end (`HTTP/1.1 200 OK`, `HTTP/2 200`); another status line starts the head
///   again (after an interim `100 Continue`, say). Anything else leaves ``status`` at 0.
/// - A field line is a name, a colon and a value, trimmed of spaces and tabs; a line with no
///   colon, or whose name is empty or holds a space or a tab, is dropped. An obsolete folded
///   line (starting with a space or a tab) continues the previous value, joined with one space.
///   A value that is not UTF-8 is read as ISO-8859-1 (``text(_:)``).
struct ResponseHeadReader {
  /// The status code, or 0 until a well-formed status line has come.
  private(set) var status = 0
  /// The fields, in order, since the status line.
  private(set) var fields: [HTTPHeaders.Field] = []

  /// Reads one line of the head (not the empty line that ends it).
  mutating func read(_ line: UnsafeRawBufferPointer) {
    guard !line.isEmpty else { return }
    if line.starts(with: Self.statusLinePrefix) {
      status = Self.status(of: line)
      fields = []
    } else if line[0] == 32 || line[0] == 9, !fields.isEmpty {
      let more = Self.trimmed(line, from: 0, to: line.count)
      fields[fields.count - 1].value += more.isEmpty ? "" : " " + more
    } else if let field = Self.field(line) {
      fields.append(field)
    }
  }

  /// The response the head describes, once its status is known.
  func response(url: URL?) -> HTTPResponse? {
    guard (100...999).contains(status) else { return nil }
    return HTTPResponse(status: status, headers: HTTPHeaders(fields), body: Data(), url: url)
  }

  /// A field line (`Name: value`), its value trimmed; `nil` for a line with no colon, or a
  /// name that is empty or holds a space or a tab (RFC 9112 §5.1).
  static func field(_ line: UnsafeRawBufferPointer) -> HTTPHeaders.Field? {
    guard let colon = line.firstIndex(of: 58), colon > 0,
      !line[0..<colon].contains(where: { $0 == 32 || $0 == 9 })
    else { return nil }
    let name = String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<colon]), as: UTF8.self)
    return HTTPHeaders.Field(name: name, value: trimmed(line, from: colon + 1, to: line.count))
  }

  /// The body's length from the `Content-Length` values: `.some(nil)` when there is none, `nil`
  /// when it cannot frame the body (RFC 9112 §6.3: the response is then discarded) — it is not
  /// a number of digits (`abc`, `-1`, `+5`, which libcurl reads as 5), or the values disagree
  /// (`5, 6`; a repeated `5, 5` is one length).
  static func contentLength(_ values: [String]) -> Int64?? {
    var found: Substring.UTF8View?
    for value in values {
      for part in value.utf8.split(separator: 44) {
        var start = part.startIndex
        var end = part.endIndex
        while start < end, part[start] == 32 || part[start] == 9 {
          start = part.index(after: start)
        }
        while end > start,
          part[part.index(before: end)] == 32 || part[part.index(before: end)] == 9
        {
          end = part.index(before: end)
        }
        let number = part[start..<end]
        if let found, !found.elementsEqual(number) { return nil }
        found = number
      }
    }
    guard let found else { return values.isEmpty ? .some(nil) : nil }
    guard !found.isEmpty, found.allSatisfy({ (48...57).contains($0) }),
      let length = Int64(Substring(found))
    else { return nil }
    return .some(length)
  }

  // The errors for a final head that cannot be an answer, naming what answered `url`.

  /// A head with no status line that reads `HTTP/x NNN`.
  static func noStatusLine(url: URL?) -> HTTPError {
    .transport(
      .badServerResponse, reason: "the response has no status line 'HTTP/x NNN'", url: url)
  }

  /// A head whose `Content-Length` values cannot frame its body (``contentLength(_:)``).
  static func invalidLength(_ values: [String], url: URL?) -> HTTPError {
    .transport(
      .badServerResponse,
      reason: "the Content-Length '\(values.joined(separator: ", "))' cannot frame the body "
        + "(RFC 9112 §6.3: digits only, one length)", url: url)
  }

  /// A final head of `101 Switching Protocols`: a server switches only to a protocol the
  /// request's `Upgrade` named (RFC 9110 §15.2.2), and no exchange asks for one (an upgrade
  /// is a byte channel's). Read as an answer, its body never ended.
  static func unaskedSwitch(url: URL?) -> HTTPError {
    .transport(
      .badServerResponse,
      reason: "the server switched protocols (101) though the request asked for no upgrade",
      url: url)
  }

  /// `HTTP/`, the start of a status line.
  private static let statusLinePrefix: [UInt8] = Array("HTTP/".utf8)

  /// The three digits after the status line's first space, followed by a space or the end;
  /// 0 when they are not there ("2000" is no status).
  private static func status(of line: UnsafeRawBufferPointer) -> Int {
    var index = line.firstIndex(of: 32).map { $0 + 1 } ?? line.count
    var code = 0
    var digits = 0
    while index < line.count, (48...57).contains(line[index]), digits < 3 {
      code = code * 10 + Int(line[index] - 48)
      index += 1
      digits += 1
    }
    return digits == 3 && (index == line.count || line[index] == 32) ? code : 0
  }

  /// The text of `line[start..<end]` without the spaces and tabs around it.
  private static func trimmed(_ line: UnsafeRawBufferPointer, from start: Int, to end: Int)
    -> String
  {
    var start = start
    var end = end
    while start < end, line[start] == 32 || line[start] == 9 { start += 1 }
    while end > start, line[end - 1] == 32 || line[end - 1] == 9 { end -= 1 }
    return text(UnsafeRawBufferPointer(rebasing: line[start..<end]))
  }

  /// A field value's text: its bytes read as UTF-8, or, when they are not UTF-8 (a server
  /// writing ISO-8859-1, `filename="café.txt"`: RFC 9110 §5.5's obs-text), as ISO-8859-1, one
  /// character a byte, so that no byte is lost to a replacement character.
  static func text(_ bytes: UnsafeRawBufferPointer) -> String {
    let utf8 = String(decoding: bytes, as: UTF8.self)
    guard !bytes.allSatisfy({ $0 < 0x80 }), utf8.unicodeScalars.contains("\u{FFFD}"),
      String(bytes: bytes, encoding: .utf8) == nil
    else { return utf8 }
    return String(bytes.lazy.map { Character(Unicode.Scalar($0)) })
  }
}
