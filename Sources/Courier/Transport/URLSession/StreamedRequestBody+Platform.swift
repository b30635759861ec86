import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking

  extension URLSessionTransport {
    /// Linux: FoundationNetworking reads an upload's body stream without ever waiting for
    /// it (a stream with no bytes available ends the body), so a body still being produced
    /// cannot go out as it comes; a streamed body is written to a temporary file first.
    /// ``CurlTransport``, Linux's default, streams it.
    static let streamsRequestBodies = false
  }
#else
  extension URLSessionTransport {
    /// Apple platforms: `uploadTask(withStreamedRequest:)`, its body read from a bound
    /// stream pair as it is produced (Apple's "Uploading streams of data").
    static let streamsRequestBodies = true
  }

  extension StreamedRequestBody {
    /// A new stream of the body from its start, for URLSession; `nil` when the body cannot
    /// be read again (a one-time stream already sent), which fails the task with
    /// `URLError.requestBodyStreamExhausted`.
    func makeInputStream() -> InputStream? {
      guard body.isReplayable, let pump = BoundBodyStream(body.chunks(), failed: failed) else {
        return nil
      }
      onStop { pump.stop() }
      pump.start()
      return pump.input
    }
  }

  extension SessionDelegate {
    /// The body of a task made with `uploadTask(withStreamedRequest:)`: asked for when it
    /// starts, and again when URLSession must resend it.
    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
      completionHandler(streamedBody(for: task)?.makeInputStream())
    }
  }

  extension StreamingTaskDelegate {
    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
      rules.urlSession(session, task: task, needNewBodyStream: completionHandler)
    }
  }

  /// The input side of a bound stream pair, for URLSession to read a body from, and a thread
  /// of its own that writes the body's chunks into the output side as they are produced. The
  /// pair holds 64 KiB: while it is full (URLSession has not sent it yet), the thread's write
  /// blocks and no further chunk is asked for, which holds the producer back.
  ///
  /// `@unchecked Sendable`: the output stream and the chunks are used by the thread alone;
  /// the rest is lock-guarded or immutable.
  final class BoundBodyStream: @unchecked Sendable {
    let input: InputStream
    private let output: OutputStream
    private let chunks: ChunkSource
    private let failed: @Sendable (HTTPError) -> Void
    private let reading = Locked<Task<Void, Never>?>(nil)
    private let stopped = Locked(false)

    init?(_ chunks: TransportRequestBody.Chunks, failed: @escaping @Sendable (HTTPError) -> Void) {
      var input: InputStream?
      var output: OutputStream?
      Stream.getBoundStreams(withBufferSize: 64 * 1024, inputStream: &input, outputStream: &output)
      guard let input, let output else { return nil }
      self.input = input
      self.output = output
      self.chunks = ChunkSource(chunks.makeAsyncIterator())
      self.failed = failed
    }

    func start() {
      let thread = Thread { [self] in run() }
      thread.name = "Courier request body"
      thread.start()
    }

    /// The task has ended: no further chunk is read.
    func stop() {
      stopped.withLock { $0 = true }
      reading.withLock { $0?.cancel() }
    }

    private func run() {
      output.open()
      defer { output.close() }
      while !stopped.withLock({ $0 }) {
        switch nextChunk() {
        case .success(nil):
          return
        case .success(let chunk?):
          guard write(chunk) else { return }
        case .failure(let error):
          failed(error)
          return
        }
      }
    }

    /// Writes all of `chunk`, blocking while the pair is full; false when URLSession has
    /// closed its side.
    private func write(_ chunk: Data) -> Bool {
      chunk.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
        guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
          let written = output.write(base + offset, maxLength: bytes.count - offset)
          guard written > 0 else { return false }
          offset += written
        }
        return true
      }
    }

    /// The next chunk, read by a task while this thread waits.
    private func nextChunk() -> Result<Data?, HTTPError> {
      let done = DispatchSemaphore(value: 0)
      let outcome = Locked<Result<Data?, HTTPError>>(.success(nil))
      let source = chunks
      let task = Task {
        do throws(HTTPError) {
          let chunk = try await source.next()
          outcome.withLock { $0 = .success(chunk) }
        } catch {
          outcome.withLock { $0 = .failure(error) }
        }
        done.signal()
      }
      reading.withLock { $0 = task }
      if stopped.withLock({ $0 }) { task.cancel() }
      done.wait()
      return outcome.withLock { $0 }
    }

    /// The body's iterator, advanced by one task at a time.
    ///
    /// `@unchecked Sendable`: `nextChunk()` waits for each read before the next starts.
    private final class ChunkSource: @unchecked Sendable {
      private var iterator: TransportRequestBody.Chunks.Iterator

      init(_ iterator: TransportRequestBody.Chunks.Iterator) {
        self.iterator = iterator
      }

      func next() async throws(HTTPError) -> Data? {
        try await iterator.next()
      }
    }
  }
#endif
