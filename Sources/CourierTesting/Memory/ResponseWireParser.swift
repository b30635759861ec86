import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Reads one HTTP/1.1 response out of the bytes a loopback handler writes, as they come:
/// the head, then the body's bytes, then its end, whatever the framing (`Content-Length`,
/// chunked, or until the connection closes). What a client could not read ends it with the
/// error URLSession gives: a malformed or missing head is `badServerResponse`, a body cut
/// short is `networkConnectionLost`.
struct ResponseWireParser: Sendable {
  /// What the bytes so far said.
  enum Event: Sendable, Equatable {
    case head(status: Int, headers: HTTPHeaders)
    case body(Data)
    case end
    case failed(URLError.Code)
  }

  private enum Phase: Sendable {
    case head
    case length(remaining: Int)
    case untilClose
    case chunkSize
    case chunkData(remaining: Int)
    case chunkEnd
    case trailers
    /// The body is whole; its end is the next event.
    case complete
    case done
  }

  private let isHeadRequest: Bool
  private var buffer: [UInt8] = []
  private var phase = Phase.head

  /// A parser for the answer to a request with `method`: a `HEAD` answer has no body.
  init(method: String) {
    isHeadRequest = method.uppercased() == "HEAD"
  }

  /// Whether the response has ended (or failed); later bytes are ignored.
  var isDone: Bool {
    switch phase {
    case .complete, .done: true
    default: false
    }
  }

  /// Reads `bytes`, returning what they complete.
  mutating func append(_ bytes: Data) -> [Event] {
    guard !isDone else { return [] }
    buffer.append(contentsOf: bytes)
    var events: [Event] = []
    do throws(LoopbackError) {
      while let event = try step() { events.append(event) }
    } catch {
      phase = .done
      events.append(.failed(.badServerResponse))
    }
    return events
  }

  /// The connection closed: a body delimited by the close ends; anything unfinished fails.
  mutating func close() -> [Event] {
    defer { phase = .done }
    switch phase {
    case .done: return []
    case .untilClose, .complete: return [.end]
    case .head: return [.failed(.badServerResponse)]
    default: return [.failed(.networkConnectionLost)]
    }
  }

  /// One event from the buffered bytes, or nil when more are needed.
  private mutating func step() throws(LoopbackError) -> Event? {
    switch phase {
    case .head:
      return try readHead()
    case .length(let remaining):
      guard !buffer.isEmpty else { return nil }
      let count = min(remaining, buffer.count)
      let data = take(count)
      phase = count == remaining ? .complete : .length(remaining: remaining - count)
      return .body(data)
    case .untilClose:
      return buffer.isEmpty ? nil : .body(take(buffer.count))
    case .chunkSize:
      guard let end = try WireSyntax.lineEnd(in: buffer, from: 0) else { return nil }
      let size = try WireSyntax.chunkSize(buffer[..<end])
      buffer.removeFirst(end + 2)
      phase = size == 0 ? .trailers : .chunkData(remaining: size)
      return try step()
    case .chunkData(let remaining):
      guard !buffer.isEmpty else { return nil }
      let count = min(remaining, buffer.count)
      phase = count == remaining ? .chunkEnd : .chunkData(remaining: remaining - count)
      return .body(take(count))
    case .chunkEnd:
      guard buffer.count >= 2 else { return nil }
      guard buffer[0] == WireSyntax.cr, buffer[1] == WireSyntax.lf else {
        throw LoopbackError("chunk data not followed by CRLF")
      }
      buffer.removeFirst(2)
      phase = .chunkSize
      return try step()
    case .trailers:
      guard let end = try WireSyntax.lineEnd(in: buffer, from: 0) else { return nil }
      buffer.removeFirst(end + 2)
      guard end == 0 else { return try step() }
      phase = .done
      return .end
    case .complete:
      phase = .done
      return .end
    case .done:
      return nil
    }
  }

  /// The head, once it has all arrived; interim (1xx) heads are skipped.
  private mutating func readHead() throws(LoopbackError) -> Event? {
    var lines: [ArraySlice<UInt8>] = []
    var start = 0
    while let end = try WireSyntax.lineEnd(in: buffer, from: start) {
      guard end > start else {
        buffer.removeFirst(end + 2)
        return try head(of: lines)
      }
      lines.append(buffer[start..<end])
      start = end + 2
    }
    return nil
  }

  private mutating func head(of lines: [ArraySlice<UInt8>]) throws(LoopbackError) -> Event? {
    guard let statusLine = lines.first else { throw LoopbackError("missing status line") }
    let parts = statusLine.split(separator: WireSyntax.space, maxSplits: 2)
    guard parts.count >= 2, WireSyntax.text(parts[0]).hasPrefix("HTTP/1."),
      parts[1].count == 3, let status = Int(WireSyntax.text(parts[1]))
    else { throw LoopbackError("status line is not \"HTTP/1.1 200 OK\"") }
    let headers = try WireSyntax.headers(lines.dropFirst())
    if (100..<200).contains(status) { return try step() }
    let framing = try WireSyntax.framing(of: headers)
    if isHeadRequest || status == 204 || status == 304 {
      phase = .complete
    } else {
      switch framing {
      case .length(0)?: phase = .complete
      case .length(let length)?: phase = .length(remaining: length)
      case .chunked?: phase = .chunkSize
      case nil: phase = .untilClose
      }
    }
    return .head(status: status, headers: headers)
  }

  private mutating func take(_ count: Int) -> Data {
    defer { buffer.removeFirst(count) }
    return Data(buffer[..<count])
  }
}
