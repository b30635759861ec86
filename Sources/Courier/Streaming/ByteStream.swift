import Foundation

/// A response body as it arrives: an `AsyncSequence` of chunks, with the response head
/// already checked. Made by ``HTTPClient/bytes(_:options:)``.
///
/// ```swift
/// let stream = try await client.bytes(Request<Data>(path: "exports/movies.ndjson"))
/// print(stream.response.status, stream.response.headers["Content-Type"] ?? "")
/// for try await line in stream.lines {
///   let movie = try JSONDecoder().decode(Movie.self, from: Data(line.utf8))
/// }
/// ```
///
/// A reader that falls behind does not make memory grow without bound: past
/// ``TransferOptions/bufferSize`` bytes, the backlog waits in a temporary file (URLSession
/// on Linux cannot pause a transfer, so the sender cannot be slowed down). The size limit
/// (``TransferOptions/maximumBytes``) holds as bytes arrive, read or not. A line of
/// ``lines`` is held in memory until its end, so it is bounded like a body kept in memory:
/// past ``HTTPClient/Configuration/maximumResponseBytes`` the stream stops and the loop
/// throws ``HTTPError/responseTooLarge(limit:)``. Breaking out of the loop,
/// dropping the stream, or cancelling the reading task cancels the transfer and closes its
/// connection. A stream is read once: a loop that ends early ends the stream.
public struct ByteStream: AsyncSequence, Sendable {
  /// A chunk of the body, as it arrived.
  public typealias Element = Data
  /// The error every failure is thrown as.
  public typealias Failure = HTTPError

  /// Status, headers and URL of the response (its body is this stream).
  public let response: HTTPResponse
  let body: TransportResponseBody
  /// The most bytes a line of ``lines`` may hold; `nil` for no limit.
  let maximumLineBytes: Int?

  /// Reads the chunks.
  public func makeAsyncIterator() -> Iterator {
    Iterator(body: body.makeAsyncIterator(), reading: Reading(body))
  }

  /// The body's lines as UTF-8 text, split at LF, CRLF or CR, without their line ends.
  public var lines: ByteLines { ByteLines(stream: self) }

  /// The trailer fields that came after the body, once it has all arrived (read it first);
  /// empty when there were none or the transport cannot read them (``CurlTransport`` can).
  public func trailers() async -> HTTPHeaders {
    await body.trailers()
  }

  /// Reads the chunks of a ``ByteStream``.
  public struct Iterator: AsyncIteratorProtocol {
    var body: TransportResponseBody.Iterator
    /// Cancels the transfer when the loop ends early (its iterator goes away).
    let reading: Reading

    /// The next chunk, or `nil` at the end of the body.
    public mutating func next() async throws(HTTPError) -> Data? {
      try await body.next(isolation: nil)
    }

    /// The next chunk, or `nil` at the end of the body.
    public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPError)
      -> Data?
    {
      try await body.next(isolation: actor)
    }
  }
}

/// The lines of a ``ByteStream``.
public struct ByteLines: AsyncSequence, Sendable {
  /// A line, without its line end.
  public typealias Element = String
  /// The error every failure is thrown as.
  public typealias Failure = HTTPError

  let stream: ByteStream

  /// Reads the lines.
  public func makeAsyncIterator() -> Iterator {
    Iterator(chunks: stream.makeAsyncIterator(), maximumLineBytes: stream.maximumLineBytes)
  }

  /// Reads the lines of a ``ByteStream``.
  public struct Iterator: AsyncIteratorProtocol {
    var chunks: ByteStream.Iterator
    let maximumLineBytes: Int?
    var line: [UInt8] = []
    var pending: [UInt8] = []
    var position = 0
    var afterCR = false
    var ended = false

    /// The next line, or `nil` after the last one.
    public mutating func next() async throws(HTTPError) -> String? {
      try await next(isolation: nil)
    }

    /// The next line, or `nil` after the last one.
    public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPError)
      -> String?
    {
      while true {
        while position < pending.count {
          let byte = pending[position]
          position += 1
          if byte == UInt8(ascii: "\n") && afterCR {
            afterCR = false
            continue
          }
          afterCR = byte == UInt8(ascii: "\r")
          if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
            defer { line = [] }
            return String(decoding: line, as: UTF8.self)
          }
          line.append(byte)
        }
        if let limit = maximumLineBytes, line.count > limit {
          ended = true
          line = []
          chunks.reading.stop()
          throw .responseTooLarge(limit: limit)
        }
        guard !ended, let chunk = try await chunks.next(isolation: actor) else {
          ended = true
          guard !line.isEmpty else { return nil }
          defer { line = [] }
          return String(decoding: line, as: UTF8.self)
        }
        pending = Array(chunk)
        position = 0
      }
    }
  }
}

/// Belongs to one loop over a stream: when the loop is left (`break`, a thrown error), its
/// iterator goes away and this stops the transfer, even while the stream itself is kept.
/// (Dropping every copy of the stream stops it too: see ``TransportResponseBody``.)
final class Reading: Sendable {
  private let body: TransportResponseBody

  init(_ body: TransportResponseBody) {
    self.body = body
  }

  /// Stops the transfer now, before the loop is left.
  func stop() {
    body.cancel()
  }

  deinit {
    body.cancel()
  }
}
