/// Turns the bytes of a `text/event-stream` into events, chunk by chunk, following the
/// WHATWG HTML standard: `event`, `data` (several lines joined with `\n`), `id`, `retry`,
/// comments, CRLF, LF or CR line ends, a leading byte-order mark, and lines or characters
/// split anywhere across chunks.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for chunk in chunks {
///   for event in parser.parse(chunk) { print(event.event, event.data) }
/// }
/// ```
public struct ServerSentEventParser: Sendable {
  /// The ID of the last complete event (`id:`, committed at its blank line), to send as
  /// `Last-Event-ID` when reconnecting.
  public private(set) var lastEventID = ""
  /// The `id:` of the event being received, committed when it completes.
  private var idBuffer = ""
  /// The reconnection time the stream asked for (`retry:`), in milliseconds.
  public private(set) var reconnectionTime: Int?

  private var line: [UInt8] = []
  private var data = ""
  private var hasData = false
  private var eventType = ""
  private var afterCR = false
  private var atStart = true
  private var pendingBOM: [UInt8] = []

  /// A parser at the start of a stream.
  public init() {}

  /// The bytes held for the event still being received (its line, data, type and ID), which
  /// a stream bounds so that a server that never ends a line or an event cannot exhaust memory.
  var pendingByteCount: Int {
    line.count + data.utf8.count + eventType.utf8.count + idBuffer.utf8.count
  }

  /// The events completed by `bytes`; an event still being received waits for more.
  public mutating func parse(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
    var events: [ServerSentEvent] = []
    for byte in bytes {
      if atStart {
        // A UTF-8 byte-order mark (EF BB BF) at the very start is dropped.
        pendingBOM.append(byte)
        if [0xEF, 0xBB, 0xBF].starts(with: pendingBOM) {
          if pendingBOM.count == 3 {
            pendingBOM = []
            atStart = false
          }
          continue
        }
        atStart = false
        let replay = pendingBOM
        pendingBOM = []
        for earlier in replay { consume(earlier, into: &events) }
        continue
      }
      consume(byte, into: &events)
    }
    return events
  }

  /// Ends the stream: an event without its closing blank line is dropped, as the standard
  /// says. The parser is ready for a new stream (a reconnection), keeping `lastEventID`.
  public mutating func finish() {
    idBuffer = lastEventID  // an incomplete event's ID is dropped with it
    line = []
    data = ""
    hasData = false
    eventType = ""
    afterCR = false
    atStart = true
    pendingBOM = []
  }

  private mutating func consume(_ byte: UInt8, into events: inout [ServerSentEvent]) {
    switch byte {
    case UInt8(ascii: "\n"):
      if afterCR {
        afterCR = false  // the LF of a CRLF
        return
      }
      endLine(into: &events)
    case UInt8(ascii: "\r"):
      afterCR = true
      endLine(into: &events)
    default:
      afterCR = false
      line.append(byte)
    }
  }

  private mutating func endLine(into events: inout [ServerSentEvent]) {
    defer { line.removeAll(keepingCapacity: true) }
    guard let first = line.first else {
      dispatch(into: &events)
      return
    }
    if first == UInt8(ascii: ":") { return }  // a comment
    // The line is split on bytes (code points, as the standard's steps say), not Characters:
    // a colon or space followed by a combining mark is still a separator.
    let field: String
    var value: ArraySlice<UInt8> = []
    if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
      field = String(decoding: line[..<colon], as: UTF8.self)
      value = line[(colon + 1)...]
      if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
    } else {
      field = String(decoding: line, as: UTF8.self)
    }
    let text = String(decoding: value, as: UTF8.self)
    switch field {
    case "event":
      eventType = text
    case "data":
      data += text
      data += "\n"
      hasData = true
    case "id":
      if !value.contains(0) { idBuffer = text }
    case "retry":
      if !value.isEmpty, value.allSatisfy({ (48...57).contains($0) }), let time = Int(text) {
        reconnectionTime = time
      }
    default:
      break  // unknown fields are ignored
    }
  }

  private mutating func dispatch(into events: inout [ServerSentEvent]) {
    defer {
      data = ""
      hasData = false
      eventType = ""
    }
    // The ID counts only once its event is complete (a blank line), even without data, so a
    // connection lost mid-event never reports an ID whose event was not received.
    lastEventID = idBuffer
    guard hasData else { return }
    if data.hasSuffix("\n") { data.removeLast() }
    events.append(
      ServerSentEvent(event: eventType.isEmpty ? "message" : eventType, data: data, id: lastEventID)
    )
  }
}
