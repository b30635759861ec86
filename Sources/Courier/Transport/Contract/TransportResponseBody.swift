import Foundation

/// A response body as a transport hands it over: an `AsyncSequence` of chunks that throws
/// ``HTTPError``, backed by bytes in memory or by a stream that the transport writes as bytes
/// arrive (``makeStream(bufferSize:onStop:)``).
///
/// A body is read once. Dropping every copy of a streamed body before its end, cancelling
/// the task that reads it, or ``cancel()``, tells the transport to stop the transfer.
public struct TransportResponseBody: AsyncSequence, Sendable {
  /// A chunk of the body, as it arrived.
  public typealias Element = Data
  /// The error every failure is thrown as.
  public typealias Failure = HTTPError

  enum Storage: Sendable {
    case data(Data)
    case file(SpoolFile)
    case stream(StreamReader)
  }

  /// What each chunk becomes before the reader sees it (``mapChunks(_:)``).
  typealias Transform = @Sendable (Data) throws(HTTPError) -> Data

  let storage: Storage
  /// The most bytes the reader accepts; more fail with ``HTTPError/responseTooLarge(limit:)``.
  let limit: Int?
  /// The trailer fields of a body in memory or on disk (a stream's are its writer's).
  private let trailerFields: HTTPHeaders
  private let transform: Transform?

  private init(
    storage: Storage, limit: Int? = nil, trailers: HTTPHeaders = HTTPHeaders(),
    transform: Transform? = nil
  ) {
    self.storage = storage
    self.limit = limit
    trailerFields = trailers
    self.transform = transform
  }

  /// A body of bytes in memory (empty by default), and the trailer fields that came after
  /// it, if any.
  public init(_ data: Data = Data(), trailers: HTTPHeaders = HTTPHeaders()) {
    self.init(storage: .data(data), trailers: trailers)
  }

  /// A body that a transport spooled whole to disk (a task whose bytes it could not see as
  /// they came): read in chunks, and closed when the last copy of the body goes.
  init(spooled file: SpoolFile) {
    self.init(storage: .file(file))
  }

  /// A body that the transport writes as bytes arrive, through the writer returned with
  /// it. Up to `bufferSize` bytes wait in memory for a reader that has fallen behind; more
  /// wait, in order, in an unlinked temporary file. `onStop` is called once if the reader
  /// ends the body before the transport has (cancelled, gone, over the size limit): the
  /// transport stops the transfer then.
  public static func makeStream(
    bufferSize: Int = 1 << 20, onStop: @escaping @Sendable (HTTPError) -> Void
  ) -> (body: TransportResponseBody, writer: TransportResponseBody.Writer) {
    let buffer = ChunkBuffer(memoryLimit: bufferSize, onStop: onStop)
    return (
      TransportResponseBody(storage: .stream(StreamReader(buffer))),
      TransportResponseBody.Writer(buffer: buffer)
    )
  }

  /// This body, failing with ``HTTPError/responseTooLarge(limit:)`` once more than
  /// `maximumBytes` have been read (and stopping the transfer then); `nil` for no limit.
  /// While no transform applies, the bytes read are the transport's, so a stream stops as
  /// soon as the transport has brought more, read or not (``ChunkBuffer/limit(to:)``).
  func limited(to maximumBytes: Int?) -> TransportResponseBody {
    if let maximumBytes, transform == nil, case .stream(let reader) = storage {
      reader.buffer.limit(to: maximumBytes)
    }
    return TransportResponseBody(
      storage: storage, limit: maximumBytes, trailers: trailerFields, transform: transform)
  }

  /// This body with each chunk passed through `transform` as it is read — for a middleware
  /// that rewrites or inspects a streamed response (``HTTPResponse/bodyStream``) without
  /// holding it back. A chunk `transform` throws on ends the read with that error and stops
  /// the transfer. The size limit counts the bytes `transform` returns.
  ///
  /// ```swift
  /// response.bodyStream = response.bodyStream?.mapChunks { chunk in
  ///   checksum.update(chunk)
  ///   return chunk
  /// }
  /// ```
  public func mapChunks(
    _ transform: @escaping @Sendable (Data) throws(HTTPError) -> Data
  ) -> TransportResponseBody {
    let first = self.transform
    return TransportResponseBody(
      storage: storage, limit: limit, trailers: trailerFields,
      transform: { chunk throws(HTTPError) in try transform(first?(chunk) ?? chunk) })
  }

  /// The trailer fields that came after the body (a chunked HTTP/1.1 or an HTTP/2 response
  /// may send them), once the whole body has arrived; empty when there were none, when the
  /// body failed or was stopped, or when the transport cannot read them (only
  /// ``CurlTransport`` does). Waits for a streamed body's end.
  public func trailers() async -> HTTPHeaders {
    if case .stream(let reader) = storage, case .failure = await reader.buffer.ended() {
      return HTTPHeaders()
    }
    return trailersAfterEnd
  }

  /// The trailers of a body in memory or on disk, or of a stream that has ended: what a
  /// caller that has read the whole body finds, without waiting.
  var trailersAfterEnd: HTTPHeaders {
    guard case .stream(let reader) = storage else { return trailerFields }
    return reader.buffer.trailers
  }

  /// The whole body in memory; past `maximumBytes` (or the body's own limit), fails with
  /// ``HTTPError/responseTooLarge(limit:)`` and stops the transfer.
  public func collect(upTo maximumBytes: Int? = nil) async throws(HTTPError) -> Data {
    if let data = try inMemory(upTo: maximumBytes) { return data }
    let limit = [maximumBytes, self.limit].compactMap { $0 }.min()
    var data = Data()
    for try await chunk in limited(to: limit) {
      if data.isEmpty { data = chunk } else { data.append(chunk) }
    }
    return data
  }

  /// The whole body at once, when it is in memory already (and no ``mapChunks(_:)`` applies);
  /// `nil` otherwise. Past `maximumBytes` (or the body's own limit), fails with
  /// ``HTTPError/responseTooLarge(limit:)``. (What ``collect(upTo:)`` does first, without an
  /// async call.)
  func inMemory(upTo maximumBytes: Int? = nil) throws(HTTPError) -> Data? {
    guard case .data(let data) = storage, transform == nil else { return nil }
    let limit = [maximumBytes, self.limit].compactMap { $0 }.min()
    if let limit, data.count > limit { throw .responseTooLarge(limit: limit) }
    return data
  }

  /// Whether the transport has brought the whole body (or its failure) already: one in
  /// memory or on disk, or a stream whose end has come, read or not. Letting such a body go
  /// stops no transfer.
  var hasEnded: Bool {
    guard case .stream(let reader) = storage else { return true }
    return reader.buffer.hasEnded
  }

  /// Tells the transport that no more of the body is wanted: the transfer stops, and
  /// reading ends with ``HTTPError/cancelled``.
  public func cancel() {
    if case .stream(let reader) = storage { reader.buffer.stop(.cancelled) }
  }

  /// Calls `action` once the reader has read the body to its end (or its error), or let it
  /// go — on the reader's side, never the transport's (at once for a body in memory or on
  /// disk). `action` must not hold this body.
  func whenRead(_ action: @escaping @Sendable (Result<Void, HTTPError>) -> Void) {
    guard case .stream(let reader) = storage else { return action(.success(())) }
    reader.buffer.whenRead(action)
  }

  /// Reads the chunks.
  public func makeAsyncIterator() -> Iterator {
    Iterator(storage: storage, limit: limit, transform: transform)
  }

  /// Reads the chunks of a ``TransportResponseBody``.
  public struct Iterator: AsyncIteratorProtocol {
    let storage: Storage
    let limit: Int?
    let transform: Transform?
    private var count = 0
    private var done = false
    private var fileOffset: Int64 = 0

    init(storage: Storage, limit: Int?, transform: Transform?) {
      self.storage = storage
      self.limit = limit
      self.transform = transform
    }

    /// The next chunk, or `nil` at the end of the body.
    public mutating func next() async throws(HTTPError) -> Data? {
      try await next(isolation: nil)
    }

    /// The next chunk, or `nil` at the end of the body.
    public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPError)
      -> Data?
    {
      guard !done else { return nil }
      let chunk: Data?
      switch storage {
      case .data(let data):
        done = true
        chunk = data.isEmpty ? nil : data
      case .file(let file):
        chunk = try readFile(file)
      case .stream(let reader):
        chunk = try await reader.buffer.next()
      }
      guard var chunk else {
        done = true
        return nil
      }
      if let transform {
        do throws(HTTPError) {
          chunk = try transform(chunk)
        } catch {
          done = true
          stop(error)
          throw error
        }
      }
      count += chunk.count
      if let limit, count > limit {
        done = true
        stop(.responseTooLarge(limit: limit))
        throw .responseTooLarge(limit: limit)
      }
      return chunk
    }

    /// Stops a streamed body's transfer: the reader ends it with `error`.
    private func stop(_ error: HTTPError) {
      if case .stream(let reader) = storage { reader.buffer.stop(error) }
    }

    private mutating func readFile(_ file: SpoolFile) throws(HTTPError) -> Data? {
      guard let chunk = file.read(64 * 1024, at: fileOffset) else {
        throw .transport(URLError(.cannotOpenFile))
      }
      fileOffset += Int64(chunk.count)
      return chunk.isEmpty ? nil : chunk
    }
  }
}

extension TransportResponseBody {
  /// Writes a streamed ``TransportResponseBody``, from one thread at a time, in order.
  public struct Writer: Sendable {
    let buffer: ChunkBuffer

    /// Hands the next bytes to the reader (never waiting: past the buffer size they wait on
    /// disk). Throws once the reader has ended the body (cancelled, gone), or once the body
    /// has passed the client's size limit, read or not (``HTTPError/responseTooLarge(limit:)``,
    /// which the reader gets after the bytes before): stop the transfer then.
    public func write(_ chunk: Data) throws(HTTPError) {
      try buffer.write(chunk)
    }

    /// The body is complete, and `trailers` came after it, if any.
    public func finish(trailers: HTTPHeaders = HTTPHeaders()) {
      if !trailers.isEmpty { buffer.trailers = trailers }
      buffer.finish(.success(()))
    }

    /// The body ends with `error`, after the bytes already written.
    public func fail(_ error: HTTPError) {
      buffer.finish(.failure(error))
    }
  }
}

/// The reader's hold on a streamed body: when the last copy of the body goes, the transfer
/// is stopped and whatever was buffered is dropped.
final class StreamReader: Sendable {
  let buffer: ChunkBuffer

  init(_ buffer: ChunkBuffer) {
    self.buffer = buffer
  }

  deinit {
    buffer.stop(.cancelled)
  }
}
