import Foundation

#if canImport(FoundationNetworking)
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
  /// pair holds 64 KiB: the thread writes only when the output stream reports space
  /// (`Stream.Event.hasSpaceAvailable`, on the thread's run loop), so while URLSession has not
  /// sent what is there, no further chunk is asked for, which holds the producer back; and the
  /// thread never blocks in a write that nothing will drain.
  ///
  /// - The body's end closes the output: URLSession reads the end of the body.
  /// - A body that fails (its sequence throws) calls `failed`, which cancels the task, and
  ///   leaves the output open until the task has ended, so that URLSession never reads a
  ///   clean end of a body cut short (closing it at once could send the truncated body as
  ///   whole before the cancellation reaches the task).
  /// - ``stop()`` (the task has ended, also before URLSession opened the stream) ends the
  ///   thread within a second, at its run loop's next turn, and cancels the chunk being read.
  ///
  /// `@unchecked Sendable`: the output stream, the chunks and the pump's state are used on the
  /// thread alone (the stream's delegate is called on the thread's run loop); the rest is
  /// lock-guarded or immutable.
  final class BoundBodyStream: NSObject, StreamDelegate, @unchecked Sendable {
    let input: InputStream
    private let output: OutputStream
    private let chunks: ChunkSource
    private let failed: @Sendable (HTTPError) -> Void
    private let reading = Locked<Task<Void, Never>?>(nil)
    private let stopped = Locked(false)
    /// Bytes of the current chunk not yet written (the thread's).
    private var pending = Data()
    /// Whether the pump is over: the body ended, or URLSession's side went away (the thread's).
    private var done = false
    /// Whether the body failed: nothing more is written, and the output stays open until the
    /// task has ended (the thread's).
    private var bodyFailed = false

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

    /// The task has ended: no further chunk is read, and the thread ends.
    func stop() {
      stopped.withLock { $0 = true }
      reading.withLock { $0?.cancel() }
    }

    /// Turns the thread's run loop, whose one source is the output stream, until the body has
    /// ended or the task has; each turn lasts a second at most, so a stop is seen even when
    /// no stream event comes.
    private func run() {
      let loop = RunLoop.current
      output.delegate = self
      output.schedule(in: loop, forMode: .default)
      output.open()
      while !done && !stopped.withLock({ $0 }) {
        _ = loop.run(mode: .default, before: Date(timeIntervalSinceNow: 1))
      }
      output.remove(from: loop, forMode: .default)
      output.delegate = nil
      output.close()
    }

    func stream(_ stream: Stream, handle event: Stream.Event) {
      if event.contains(.errorOccurred) || event.contains(.endEncountered) {
        done = true  // URLSession closed its side: nothing reads the body any more
      } else if event.contains(.hasSpaceAvailable) {
        pump()
      }
    }

    /// Writes what fits of the body, asking for the next chunk when the last is out.
    private func pump() {
      guard !done, !bodyFailed else { return }
      while pending.isEmpty {
        guard !stopped.withLock({ $0 }) else { return }
        switch nextChunk() {
        case .success(nil):
          output.close()  // the body's end
          done = true
          return
        case .success(let chunk?):
          pending = chunk
        case .failure(let error):
          bodyFailed = true
          failed(error)  // cancels the task; the output stays open until it has ended
          return
        }
      }
      let written = pending.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Int in
        guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return 0 }
        return output.write(base, maxLength: bytes.count)
      }
      if written < 0 {
        done = true  // the pair is broken: URLSession's side has gone
      } else {
        pending.removeFirst(written)
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
