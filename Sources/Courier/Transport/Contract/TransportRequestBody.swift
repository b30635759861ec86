import Foundation

/// A request body as a transport sends it: bytes in memory, a file on disk, or a stream of
/// chunks. Bytes, files and a stream made afresh for each sending are readable from the
/// start as often as needed (a redirect or a retry sends them again); a one-time stream
/// (``stream(_:length:)``) can be sent once, and ``isReplayable`` says so.
///
/// ```swift
/// let body = TransportRequestBody.data(Data(#"{"value":8.5}"#.utf8))
/// let video = try TransportRequestBody.file(videoURL)            // sized now, read as it is sent
/// let live = TransportRequestBody.stream(length: nil) { AsyncThrowingStream { … } }
/// let once = TransportRequestBody.stream(microphone.chunks)      // sent as it is produced, once
/// ```
///
/// File bodies, and multipart forms with file parts, are read from their files 64 KiB at a
/// time while the request is sent, never whole into memory; their length is the files' sizes
/// when the body was made, and a file whose size has changed since fails the sending with
/// `HTTPError.transport(URLError(.requestBodyStreamExhausted))`.
public struct TransportRequestBody: Sendable {
  /// One run of bytes of a body made of parts (a multipart form).
  enum Segment: Sendable {
    case data(Data)
    /// The first `length` bytes of a file (its size when the request was built); with a
    /// `delimiter` (a multipart form's), the file must not hold it after a line break.
    case file(URL, length: Int64, delimiter: Data? = nil)
  }

  enum Storage: Sendable {
    case segments([Segment])
    /// `once` is set for a stream that can be read once: it says whether it has been.
    case stream(
      length: Int64?, make: @Sendable () -> AsyncThrowingStream<Data, any Error>,
      once: Locked<Bool>?)
  }

  let storage: Storage

  init(segments: [Segment]) {
    storage = .segments(segments)
  }

  /// Bytes in memory.
  public static func data(_ data: Data) -> TransportRequestBody {
    TransportRequestBody(segments: [.data(data)])
  }

  /// The contents of the file at `url`, whose size is taken now and sent as the length.
  ///
  /// - Throws: ``HTTPError/invalidRequest(reason:)`` when it is not a readable regular file.
  public static func file(_ url: URL) throws(HTTPError) -> TransportRequestBody {
    TransportRequestBody(segments: [try file(url, describedAs: "the body file")])
  }

  /// Chunks from a stream that `makeChunks` opens afresh for each sending; `length` is the
  /// total when known (sent as `Content-Length`), `nil` otherwise. A stream that throws, or
  /// that ends short of `length` or runs past it, ends the request with
  /// `HTTPError.transport(URLError(.requestBodyStreamExhausted))`.
  public static func stream(
    length: Int64? = nil,
    _ makeChunks: @escaping @Sendable () -> AsyncThrowingStream<Data, any Error>
  ) -> TransportRequestBody {
    TransportRequestBody(storage: .stream(length: length, make: makeChunks, once: nil))
  }

  /// The chunks of `chunks`, sent as they are produced: a transport that can stream a body
  /// (``CurlTransport``, ``URLSessionTransport`` on Apple platforms) asks for the next chunk
  /// only when it has room for it, so a producer is held back by the network (back-pressure).
  /// `length` is the total when known (sent as `Content-Length`; a sequence that ends short
  /// of it or runs past it fails like one that throws); without it an HTTP/1.1 body is sent
  /// chunked.
  ///
  /// The sequence is read once: a retry or a 307/308 redirect that would need the body again
  /// after it has been opened is refused (see ``isReplayable``). Use
  /// ``stream(length:_:)`` with a closure that opens the chunks afresh when they can be
  /// produced again. A sequence that throws ends the request with
  /// `HTTPError.transport(URLError(.requestBodyStreamExhausted))`.
  public static func stream<ChunkSequence: AsyncSequence & Sendable>(
    _ chunks: ChunkSequence, length: Int64? = nil
  ) -> TransportRequestBody where ChunkSequence.Element: DataProtocol {
    TransportRequestBody(
      storage: .stream(
        length: length, make: { ChunkPump.stream(of: chunks) }, once: Locked(false)))
  }

  /// Whether the body can be sent again from its start (a retry, a 307 or 308 redirect):
  /// always for bytes, files and a stream that ``stream(length:_:)`` makes afresh; for a
  /// one-time stream, only until it has been opened.
  public var isReplayable: Bool {
    guard case .stream(_, _, let once?) = storage else { return true }
    return !once.withLock { $0 }
  }

  /// The error for a body that cannot be sent again, saying why it was asked for.
  static func notReplayable(_ why: String) -> HTTPError {
    .transport(
      URLError(
        .requestBodyStreamExhausted,
        userInfo: [
          NSLocalizedDescriptionKey:
            "\(why) needs the request body again, and it was a one-time stream that has "
            + "been sent; give a stream that can be made afresh (TransportRequestBody.stream(length:_:))"
        ]))
  }

  private init(storage: Storage) {
    self.storage = storage
  }

  /// The total length in bytes, when known.
  public var length: Int64? {
    switch storage {
    case .stream(let length, _, _):
      return length
    case .segments(let segments):
      return Self.length(of: segments)
    }
  }

  /// The length of a body made of `segments`.
  static func length(of segments: [Segment]) -> Int64 {
    segments.reduce(0) { total, segment in
      switch segment {
      case .data(let data): total + Int64(data.count)
      case .file(_, let length, _): total + length
      }
    }
  }

  /// The parts of a body of bytes and files (not a stream).
  var segments: [Segment]? {
    if case .segments(let segments) = storage { segments } else { nil }
  }

  /// The whole body, when it is in memory (no file, no stream).
  public var data: Data? {
    guard case .segments(let segments) = storage else { return nil }
    if segments.count == 1, case .data(let data) = segments[0] { return data }
    var data = Data()
    for segment in segments {
      guard case .data(let bytes) = segment else { return nil }
      data.append(bytes)
    }
    return data
  }

  /// The file holding exactly this body, when the body is one whole file that has not
  /// changed size since it was sized.
  public var file: URL? {
    guard case .segments(let segments) = storage, segments.count == 1,
      case .file(let url, let length, _) = segments[0],
      FileBytes.regularFileSize(url.path) == length
    else { return nil }
    return url
  }

  /// The body's chunks, read from the start.
  public func chunks() -> TransportRequestBody.Chunks {
    TransportRequestBody.Chunks(source: self)
  }

  /// The whole body, read into memory.
  public func collect() async throws(HTTPError) -> Data {
    if let data { return data }
    var data = Data()
    for try await chunk in chunks() { data.append(chunk) }
    return data
  }

  /// A file segment for `url`, sized now, that must not hold `delimiter` (see
  /// ``Segment/file(_:length:delimiter:)``).
  ///
  /// - Throws: ``HTTPError/invalidRequest(reason:)`` when the file cannot be read.
  static func file(_ url: URL, describedAs what: String, delimiter: Data? = nil)
    throws(HTTPError) -> Segment
  {
    // `stat`, not `attributesOfItem`, which does not follow a symbolic link: a file
    // reached through one was refused as "not a readable file".
    guard url.isFileURL, FileManager.default.isReadableFile(atPath: url.path),
      let size = FileBytes.regularFileSize(url.path)
    else {
      throw .invalidRequest(reason: "\(what) is not a readable file (\(url.path))")
    }
    return .file(url, length: size, delimiter: delimiter)
  }
}

extension TransportRequestBody {
  /// The chunks of a ``TransportRequestBody``, read from its start: at most 64 KiB each from memory and
  /// files (read only when asked for), as they come from a stream.
  public struct Chunks: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data
    /// The error every failure is thrown as.
    public typealias Failure = HTTPError

    let source: TransportRequestBody

    /// Reads the body from its start.
    public func makeAsyncIterator() -> Iterator {
      switch source.storage {
      case .segments(let segments): return Iterator(reading: .segments(SegmentReader(segments)))
      case .stream(let length, let make, let once):
        // A one-time stream is opened once; a second reading finds it spent.
        if let once, once.setting() {
          return Iterator(reading: .spent)
        }
        return Iterator(reading: .stream(make().makeAsyncIterator()), length: length)
      }
    }

    /// Reads the chunks of a body.
    public struct Iterator: AsyncIteratorProtocol {
      enum Reading {
        case segments(SegmentReader)
        case stream(AsyncThrowingStream<Data, any Error>.Iterator)
        /// A one-time stream read before.
        case spent
      }

      var reading: Reading
      /// A stream's announced length (its `Content-Length`), held to: a stream that ends
      /// short or runs past it fails, where the server would wait for bytes that never come
      /// or take the surplus as the start of another request.
      var length: Int64? = nil
      /// How many bytes of the stream have been read.
      var read: Int64 = 0

      /// The next chunk, or `nil` at the end of the body.
      public mutating func next() async throws(HTTPError) -> Data? {
        try await next(isolation: nil)
      }

      /// The next chunk, or `nil` at the end of the body.
      public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPError)
        -> Data?
      {
        switch reading {
        case .segments(let reader):
          return try reader.next()
        case .spent:
          throw TransportRequestBody.notReplayable("sending it again")
        case .stream(var iterator):
          defer { reading = .stream(iterator) }
          let chunk: Data?
          do {
            // `next(isolation:)` is the Swift 6.0 runtime's (macOS 15, iOS 18); before it, the
            // plain `next()` reads the same stream with one more executor hop. The iterator
            // goes along on that hop and comes back before anything else touches it (one
            // reader at a time), which region checking cannot see: hence `unsafe`.
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
              chunk = try await iterator.next(isolation: actor)
            } else {
              nonisolated(unsafe) var hopping = iterator
              defer { iterator = hopping }
              chunk = try await hopping.next()
            }
          } catch {
            throw .transport(
              URLError(
                .requestBodyStreamExhausted,
                userInfo: [
                  NSUnderlyingErrorKey: error,
                  NSLocalizedDescriptionKey: "the request body's stream threw \(error)",
                  HTTPError.reasonKey: "the request body's stream threw \(error)",
                ]))
          }
          try count(chunk)
          return chunk
        }
      }

      /// Adds `chunk` (`nil` at the end) to the bytes read, and throws when the stream has
      /// run past its announced length or ended short of it.
      private mutating func count(_ chunk: Data?) throws(HTTPError) {
        guard let length else { return }
        if let chunk { read += Int64(chunk.count) }
        guard read > length || (chunk == nil && read < length) else { return }
        let what = chunk == nil ? "ended after \(read) bytes" : "ran past them"
        throw .transport(
          .requestBodyStreamExhausted,
          reason: "the request body's stream was announced as \(length) bytes and \(what), "
            + "so the request was stopped")
      }
    }
  }
}

extension Locked<Bool> {
  /// Sets the flag; returns whether it was set already.
  fileprivate func setting() -> Bool {
    withLock { flag in
      defer { flag = true }
      return flag
    }
  }
}
