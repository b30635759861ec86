import Foundation
import Testing

@testable import Courier

/// The one reader of HTTP/1.1 response heads, as CurlTransport's transfers and its WebSocket
/// handshake both use it.
@Suite("Reading a response head")
struct ResponseHeadReaderTests {
  /// The reader after `lines`.
  func read(_ lines: [String]) -> ResponseHeadReader {
    var reader = ResponseHeadReader()
    for line in lines {
      Array(line.utf8).withUnsafeBytes { reader.read($0) }
    }
    return reader
  }

  @Test("a status line and fields, trimmed; a folded line continues the field before it")
  func fields() throws {
    let reader = read([
      "HTTP/1.1 200 OK", "Content-Type:\t text/plain ", "X-Long: one", " \ttwo ", "\t",
      "Empty:",
    ])
    let response = try #require(reader.response(url: nil))
    #expect(response.status == 200)
    #expect(response.headers["Content-Type"] == "text/plain")
    #expect(response.headers["X-Long"] == "one two")
    #expect(response.headers["Empty"] == "")
  }

  @Test("a value that is not UTF-8 is read as ISO-8859-1, byte for byte; UTF-8 stays UTF-8")
  func latin1Values() throws {
    var reader = ResponseHeadReader()
    let lines: [[UInt8]] = [
      Array("HTTP/1.1 200 OK".utf8),
      Array("Content-Disposition: attachment; filename=\"caf".utf8) + [0xE9] + Array(".txt\"".utf8),
      Array("X-UTF8: café 😀".utf8),
      Array("X-Replacement: a\u{FFFD}b".utf8),
    ]
    for line in lines { line.withUnsafeBytes { reader.read($0) } }
    let headers = try #require(reader.response(url: nil)).headers
    #expect(headers["Content-Disposition"] == "attachment; filename=\"café.txt\"")
    #expect(headers["X-UTF8"] == "café 😀")
    #expect(headers["X-Replacement"] == "a\u{FFFD}b")
  }

  @Test("malformed field lines are dropped: no colon, an empty name, a space before the colon")
  func malformedFields() throws {
    let reader = read(["HTTP/1.1 101 Switching Protocols", "garbage", ": x", "Upgrade : evil"])
    #expect(try #require(reader.response(url: nil)).headers.isEmpty)
  }

  @Test("status lines: HTTP/2's, an interim one then the final one; no status, no response")
  func statusLines() {
    #expect(read(["HTTP/2 204"]).status == 204)
    let interim = read(["HTTP/1.1 100 Continue", "X-Interim: 1", "HTTP/1.1 201 Created"])
    #expect(interim.status == 201)
    #expect(interim.fields.isEmpty)
    for bad in ["HTTP/1.1 2000 OK", "HTTP/1.1 20 OK", "HTTP/1.1 abc", "Http/1.1 200 OK", ""] {
      #expect(read([bad]).response(url: nil) == nil, "\(bad)")
    }
  }

  @Test("Content-Length: repeats are one length; a non-number or a disagreement refuses the head")
  func contentLength() {
    #expect(ResponseHeadReader.contentLength(["512"]) == .some(512))
    #expect(ResponseHeadReader.contentLength([" 12\t"]) == .some(12))
    #expect(ResponseHeadReader.contentLength(["5, 5"]) == .some(5))
    #expect(ResponseHeadReader.contentLength(["5", "5"]) == .some(5))
    #expect(ResponseHeadReader.contentLength([]) == .some(nil))
    // Not a length, or disagreeing lengths: no way to tell where the body ends (RFC 9112 §6.3).
    for invalid in [["abc"], ["+5"], ["-1"], [""], ["5 5"], ["99999999999999999999"]] {
      #expect(ResponseHeadReader.contentLength(invalid) == nil, "\(invalid)")
    }
    #expect(ResponseHeadReader.contentLength(["5, 6"]) == nil)
    #expect(ResponseHeadReader.contentLength(["5", "6"]) == nil)
  }

  @Test("the WebSocket handshake reads its answer by the same rules: folding, dropped names")
  func handshakeHead() throws {
    let answer =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nX-Note: a\r\n b\r\n"
      + "Connection : close\r\n\r\n"
    let response = try WebSocketUpgrade.parseHead(ArraySlice(Array(answer.utf8)))
    #expect(response.status == 101)
    #expect(response.headers["X-Note"] == "a b")
    #expect(response.headers["Connection"] == nil)
    #expect(throws: HTTPError.self) {
      try WebSocketUpgrade.parseHead(ArraySlice(Array("HTTP/1.1 1O1 No\r\n\r\n".utf8)))
    }
  }

  @Test("a refused handshake's lengths follow the transfers' rule: disagreeing ones fail")
  func handshakeRefusalLength() throws {
    var refusal = HTTPResponse(status: 403, headers: ["Content-Length": "5, 6"])
    #expect(throws: HTTPError.self) {
      try WebSocketUpgrade.RefusalBody(of: refusal, limit: 100)
    }
    refusal.headers = ["Content-Length": "5, 5"]
    var body = try WebSocketUpgrade.RefusalBody(of: refusal, limit: 100)
    #expect(try body.read(Data("nop".utf8)) == nil)
    #expect(try body.read(Data("e!".utf8)) == Data("nope!".utf8))
  }
}
