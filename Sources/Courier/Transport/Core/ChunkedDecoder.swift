import Foundation

/// Undoes HTTP/1.1's chunked transfer coding (RFC 9112 §7.1) as a body's bytes arrive, in
/// pieces of any size: the chunks' data, the trailer fields after the last chunk, and whether
/// the body has ended. ``CurlTransport`` reads a chunked response raw through it when the
/// request's body is a stream, to know where the response ends while the body is still sent.
///
/// A value: ``decode(_:)`` moves it on, so a transport that cannot take the decoded bytes yet
/// (its reader's buffer is full) keeps the value from before and decodes the same bytes again.
///
/// Hostile input fails with ``HTTPError/transport(_:)`` (`URLError.badServerResponse`, saying
/// what was wrong), never a crash: a chunk size that is not hexadecimal or past 63 bits, a line
/// longer than ``maximumLineLength``, chunk data longer than its size, trailer fields past
/// ``maximumTrailerBytes``. A malformed trailer field is dropped, as libcurl drops it; bytes
/// after the end are ignored, as libcurl ignores them.
struct ChunkedDecoder: Sendable {
  /// The longest line accepted: a chunk-size line with its extensions, or a trailer field.
  static let maximumLineLength = 8 * 1024
  /// The most bytes of trailer fields accepted.
  static let maximumTrailerBytes = 64 * 1024

  private enum State: Sendable {
    /// Reading a chunk-size line.
    case size
    /// Reading a chunk's data, so many bytes of it still to come.
    case data(Int64)
    /// Reading the line end after a chunk's data.
    case dataEnd
    /// Reading the trailer section, after the last chunk.
    case trailers
    /// The body has ended.
    case done
  }

  private var state = State.size
  /// The line being read, without its end.
  private var line: [UInt8] = []
  private var trailerBytes = 0
  /// The trailer fields that came after the last chunk.
  private(set) var trailers: [HTTPHeaders.Field] = []

  /// Whether the last chunk and the trailer section have come: the body has ended.
  var isComplete: Bool {
    if case .done = state { true } else { false }
  }

  /// Decodes the next bytes of the body; returns the data they carry (often none).
  mutating func decode(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> Data {
    var output = Data()
    var index = 0
    while index < bytes.count {
      switch state {
      case .done:
        return output
      case .data(let remaining):
        let count = Int(min(remaining, Int64(bytes.count - index)))
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<index + count]))
        index += count
        state = remaining == Int64(count) ? .dataEnd : .data(remaining - Int64(count))
      case .size, .dataEnd, .trailers:
        let rest = UnsafeRawBufferPointer(rebasing: bytes[index...])
        let end = rest.firstIndex(of: 10)
        let piece = UnsafeRawBufferPointer(rebasing: rest[..<(end ?? rest.endIndex)])
        guard line.count + piece.count <= Self.maximumLineLength + 1 else {
          throw Self.malformed("a line longer than \(Self.maximumLineLength) bytes")
        }
        line.append(contentsOf: piece)
        index += piece.count
        guard end != nil else { continue }
        index += 1
        try lineEnded()
      }
    }
    return output
  }

  /// A whole line has come (its LF taken): what it says for the state it ends.
  private mutating func lineEnded() throws(HTTPError) {
    if line.last == 13 { line.removeLast() }
    guard line.count <= Self.maximumLineLength else {
      throw Self.malformed("a line longer than \(Self.maximumLineLength) bytes")
    }
    defer { line.removeAll(keepingCapacity: true) }
    switch state {
    case .size:
      let size = try Self.chunkSize(line)
      state = size == 0 ? .trailers : .data(size)
    case .dataEnd:
      guard line.isEmpty else { throw Self.malformed("chunk data longer than its size") }
      state = .size
    case .trailers:
      guard !line.isEmpty else {
        state = .done
        return
      }
      trailerBytes += line.count + 2
      guard trailerBytes <= Self.maximumTrailerBytes else {
        throw Self.malformed("trailer fields past \(Self.maximumTrailerBytes) bytes")
      }
      if let field = line.withUnsafeBytes(ResponseHeadReader.field) { trailers.append(field) }
    case .data, .done:
      break
    }
  }

  /// The size a chunk-size line gives: hexadecimal digits, then perhaps whitespace and
  /// extensions after a semicolon (which say nothing Courier needs).
  private static func chunkSize(_ line: [UInt8]) throws(HTTPError) -> Int64 {
    var size: Int64 = 0
    var index = 0
    while index < line.count, let digit = hexadecimal(line[index]) {
      guard size <= (Int64.max - digit) / 16 else { throw malformed("a chunk size past 63 bits") }
      size = size * 16 + digit
      index += 1
    }
    guard index > 0 else { throw malformed("a chunk size that is not hexadecimal") }
    while index < line.count, line[index] == 32 || line[index] == 9 { index += 1 }
    guard index == line.count || line[index] == 59 else {
      throw malformed("a chunk size that is not hexadecimal")
    }
    return size
  }

  private static func hexadecimal(_ byte: UInt8) -> Int64? {
    switch byte {
    case 48...57: Int64(byte - 48)
    case 65...70: Int64(byte - 55)
    case 97...102: Int64(byte - 87)
    default: nil
    }
  }

  private static func malformed(_ what: String) -> HTTPError {
    .transport(
      URLError(
        .badServerResponse,
        userInfo: [NSLocalizedDescriptionKey: "A malformed chunked response body: \(what)."]))
  }
}
