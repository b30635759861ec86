import Courier
import Foundation
import Testing

@Suite("Parsing Server-Sent Events (WHATWG)")
struct ServerSentEventParserTests {
  func events(_ stream: String) -> [ServerSentEvent] {
    var parser = ServerSentEventParser()
    return parser.parse(Array(stream.utf8))
  }

  @Test("the standard's stock-ticker example joins data lines with LF")
  func multiLineData() {
    #expect(events("data: YHOO\ndata: +2\ndata: 10\n\n") == [ServerSentEvent(data: "YHOO\n+2\n10")])
  }

  @Test("the standard's example with comments, ids, and one space stripped")
  func standardExample() {
    let stream =
      ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
    #expect(
      events(stream) == [
        ServerSentEvent(data: "first event", id: "1"),
        ServerSentEvent(data: "second event", id: ""),
        ServerSentEvent(data: " third event", id: ""),
      ])
  }

  @Test("empty data fields make events; an unterminated event is dropped")
  func emptyData() {
    #expect(
      events("data\n\ndata\ndata\n\ndata:") == [
        ServerSentEvent(data: ""), ServerSentEvent(data: "\n"),
      ])
  }

  /// The standard's steps work on code points: a combining mark after the colon or the
  /// space is part of the value, and never joins them into one separator-less character.
  @Test("a colon or space followed by a combining mark still separates field and value")
  func combiningMarks() {
    let acute = "\u{301}"
    #expect(events("data:\(acute)x\n\n") == [ServerSentEvent(data: "\(acute)x")])
    #expect(events("data: \(acute)x\n\n") == [ServerSentEvent(data: "\(acute)x")])
    #expect(events("data:  \(acute)\n\n") == [ServerSentEvent(data: " \(acute)")])
    #expect(
      events("event:\(acute)\ndata: é\nid: \(acute)1\n\n") == [
        ServerSentEvent(event: acute, data: "é", id: "\(acute)1")
      ])
  }

  @Test("a space after the colon is optional")
  func optionalSpace() {
    #expect(
      events("data:test\n\ndata: test\n\n") == [
        ServerSentEvent(data: "test"), ServerSentEvent(data: "test"),
      ])
  }

  @Test("event types, and blocks without data dispatch nothing")
  func eventTypes() {
    #expect(
      events("event: add\ndata: 73857293\n\nevent: remove\n\ndata: x\n\n") == [
        ServerSentEvent(event: "add", data: "73857293"), ServerSentEvent(data: "x"),
      ])
  }

  @Test("retry sets the reconnection time only when it is all digits; unknown fields are ignored")
  func retry() {
    var parser = ServerSentEventParser()
    _ = parser.parse(Array("retry: 3000\nfoo: bar\n\n".utf8))
    #expect(parser.reconnectionTime == 3000)
    _ = parser.parse(Array("retry: 3s\nretry: -1\nretry:\n\n".utf8))
    #expect(parser.reconnectionTime == 3000)
  }

  @Test("an id with NUL is ignored; the last id is kept across events and finish()")
  func ids() {
    var parser = ServerSentEventParser()
    let first = parser.parse(Array("id: 7\ndata: a\n\ndata: b\n\nid: x\u{0}y\ndata: c\n\n".utf8))
    #expect(first.map(\.id) == ["7", "7", "7"])
    parser.finish()
    #expect(parser.lastEventID == "7")
  }

  @Test(
    "CRLF, LF and CR line ends read alike, and a leading BOM is dropped",
    arguments: ["\r\n", "\n", "\r"])
  func lineEnds(end: String) {
    let stream = "\u{FEFF}event: e\(end)data: 1\(end)data: 2\(end)\(end)data: 3\(end)\(end)"
    #expect(
      events(stream) == [ServerSentEvent(event: "e", data: "1\n2"), ServerSentEvent(data: "3")])
  }

  @Test("a stream split at every byte gives the same events, UTF-8 and CRLF included")
  func everySplit() {
    let stream = Array(
      "\u{FEFF}: hi\r\nevent: greet\r\ndata: héllo 🎬\r\nid: 42\r\n\r\ndata: {\"n\":1}\r\n\r\n".utf8)
    var whole = ServerSentEventParser()
    let expected = whole.parse(stream)
    #expect(expected.count == 2)
    for split in 0...stream.count {
      var parser = ServerSentEventParser()
      let got = parser.parse(stream[..<split]) + parser.parse(stream[split...])
      #expect(got == expected, "split at \(split)")
    }
    for size in [1, 2, 3, 5, 7] {
      var parser = ServerSentEventParser()
      var got: [ServerSentEvent] = []
      for start in stride(from: 0, to: stream.count, by: size) {
        got += parser.parse(stream[start..<min(start + size, stream.count)])
      }
      #expect(got == expected, "chunks of \(size)")
    }
  }

  @Test("data decodes as JSON, and bad JSON is a decoding failure naming the event")
  func json() throws {
    struct Delta: Decodable, Equatable { var text: String }
    let event = ServerSentEvent(event: "delta", data: #"{"text":"Hi"}"#)
    #expect(try event.decode(Delta.self) == Delta(text: "Hi"))
    let bad = ServerSentEvent(event: "delta", data: "not json")
    let error = #expect(throws: HTTPError.self) { try bad.decode(Delta.self) }
    guard case .decodingFailed(let reason, _) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(reason.contains("event 'delta'"))
  }
}

@Suite("Server-Sent Events: event IDs for reconnection")
struct ServerSentEventIDTests {
  @Test("an id counts once its event is complete, even an event without data")
  func committedAtBlankLine() {
    var parser = ServerSentEventParser()
    _ = parser.parse(Array("id: 5\n".utf8))
    #expect(parser.lastEventID == "")
    _ = parser.parse(Array("\n".utf8))
    #expect(parser.lastEventID == "5")
  }

  @Test("the id of an event cut off by the end of the stream is dropped with it")
  func incompleteEventDropped() {
    var parser = ServerSentEventParser()
    _ = parser.parse(Array("id: 1\ndata: one\n\nid: 2\ndata: tw".utf8))
    parser.finish()
    #expect(parser.lastEventID == "1")
    let events = parser.parse(Array("data: next\n\n".utf8))
    #expect(events == [ServerSentEvent(data: "next", id: "1")])
  }
}
