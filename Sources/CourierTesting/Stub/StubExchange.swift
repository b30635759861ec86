import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One request to a ``StubTransport``, kept to the transport contract: the caller gets the
/// head (or the error that comes first: cancellation, a timeout, a refused size), then the
/// body's chunks as the stub delivers them, within the request's limits.
final class StubExchange: Sendable {
  private struct State {
    var work: Task<Void, Never>?
    var writer: ResponseBodyWriter?
    /// The in-memory connection of a served answer.
    var wire: MemoryWire?
    /// Body bytes delivered so far, and how many the head announced.
    var received = 0
    var expected: Int64?
    var timerToken: UInt64?
    var ended = false
    /// The work was cancelled (perhaps before it was made).
    var cancelled = false
  }

  private let options: TransportOptions
  private let head = FirstOutcome<Result<TransportResponse, HTTPError>>()
  private let state = Locked(State())
  private let timer: DeadlineTimer
  private let watch: DeadlineWatch

  init(options: TransportOptions, timer: DeadlineTimer) {
    self.options = options
    self.timer = timer
    let head = self.head
    let state = self.state
    watch = DeadlineWatch(options, clock: timer.clock) {
      head.finish(.failure(.timedOut))
      Self.cancel(state, with: .timedOut)
    }
  }

  /// Ends the body with `error` and cancels the work, now or as soon as it is made.
  private static func cancel(_ state: Locked<State>, with error: HTTPError) {
    let (writer, work, wire) = state.withLock { state in
      state.cancelled = true
      return (state.writer, state.work, state.wire)
    }
    writer?.fail(error)
    wire?.clientGone()
    work?.cancel()
  }

  /// Runs `answer` in a task of its own and waits for the head, until the answer ends,
  /// times out or the caller is cancelled.
  func run(_ answer: @escaping @Sendable (StubExchange) async throws(HTTPError) -> Void)
    async throws(HTTPError) -> TransportResponse
  {
    let token = watch.firstWake.map { timer.schedule(watch, at: $0) }
    let body: @Sendable () async -> Void = {
      do throws(HTTPError) {
        try await answer(self)
      } catch {
        self.fail(error)
      }
      self.end()
    }
    // The answer runs in a task of its own, so that a deadline or the caller's cancellation
    // ends the wait even when a handler ignores cancellation. Started immediately, it runs
    // on this thread until it first suspends: a canned answer is ready without a thread hop.
    let work = immediateTask(body)
    let (ended, cancelled) = state.withLock { state in
      state.work = work
      state.timerToken = token
      return (state.ended, state.cancelled)
    }
    if ended, let token { timer.cancel(token) }
    if cancelled { work.cancel() }
    let outcome = await withTaskCancellationHandler {
      await head.value()
    } onCancel: { [state, head] in
      head.finish(.failure(.cancelled))
      Self.cancel(state, with: .cancelled)
    }
    return try outcome.get()
  }

  /// The answer is over: the deadline no longer matters, and a caller still waiting for
  /// the head gets an error rather than waiting for good.
  private func end() {
    head.finish(.failure(.transport(URLError(.badServerResponse))))
    let token = state.withLock { state in
      state.ended = true
      return state.timerToken
    }
    if let token { timer.cancel(token) }
  }

  /// Waits `delay` on the stub's clock (none when `nil`); cancellation ends the wait.
  func wait(_ delay: Duration?) async throws(HTTPError) {
    guard let delay else { return }
    do {
      try await timer.clock.wait(for: delay)
    } catch {
      throw .cancelled
    }
  }

  /// Answers with `stub`: the head at once (after checking its announced length), then the
  /// chunks, each after the stub's delay, counted against the size limit.
  func answer(_ stub: StubResponse, url: URL?) async throws(HTTPError) {
    let response = HTTPResponse(status: stub.status, headers: stub.headers, url: url)
    let expected = try announcedLength(of: response)
    if options.collectsBody, stub.chunkDelay == nil, stub.failure == nil {
      let data = stub.body
      if let limit = options.maximumBytes, data.count > limit {
        throw .responseTooLarge(limit: limit)
      }
      if !data.isEmpty { options.progress?(.received(Int64(data.count), of: expected)) }
      head.finish(.success(TransportResponse(head: response, body: ResponseBody(data))))
      return
    }
    guard let writer = open(response, expected: expected) else { return }
    for chunk in stub.chunks where !chunk.isEmpty {
      try await wait(stub.chunkDelay)
      try deliver(chunk, to: writer)
    }
    if let failure = stub.failure { writer.fail(failure) } else { writer.finish() }
  }

  /// Answers with a loopback handler, in memory: what its response writes is read as a
  /// client reads it off a socket, and handed over as it comes, within the limits.
  func serve(_ request: URLRequest, body: Data?, by host: MemoryHost) async throws(HTTPError) {
    try await host.serve(request, body: body) { [state] wire in
      let cancelled = state.withLock { state in
        state.wire = wire
        return state.cancelled
      }
      if cancelled { wire.clientGone() }
    } receive: { [self] events in
      do throws(HTTPError) {
        try take(events, url: request.url)
      } catch {
        fail(error)
        throw error
      }
    }
  }

  private func take(_ events: [ResponseWireParser.Event], url: URL?) throws(HTTPError) {
    for event in events {
      switch event {
      case .head(let status, let headers):
        let response = HTTPResponse(status: status, headers: headers, url: url)
        guard open(response, expected: try announcedLength(of: response)) != nil else {
          throw .cancelled
        }
      case .body(let chunk):
        guard let writer = state.withLock({ $0.writer }) else { throw .cancelled }
        try deliver(chunk, to: writer)
      case .end:
        state.withLock { $0.writer }?.finish()
      case .failed(let code):
        throw .transport(URLError(code))
      }
    }
  }

  /// The head's `Content-Length`; throws when it is over the size limit.
  private func announcedLength(of response: HTTPResponse) throws(HTTPError) -> Int64? {
    let expected = response.headers["Content-Length"].flatMap(Int64.init)
    if let limit = options.maximumBytes, let expected, expected > Int64(limit) {
      throw .responseTooLarge(limit: limit)
    }
    return expected
  }

  /// Hands the head over with a streamed body, returning where the body goes; `nil` when
  /// the caller has already had an answer (an error, or cancellation).
  private func open(_ response: HTTPResponse, expected: Int64?) -> ResponseBodyWriter? {
    let (body, writer) = ResponseBody.makeStream(bufferSize: options.bufferSize) {
      [state] error in Self.cancel(state, with: error)
    }
    state.withLock { state in
      state.writer = writer
      state.expected = expected
    }
    return head.finish(.success(TransportResponse(head: response, body: body))) ? writer : nil
  }

  /// Writes a chunk of the body, counted against the size limit, and reports progress.
  private func deliver(_ chunk: Data, to writer: ResponseBodyWriter) throws(HTTPError) {
    guard !chunk.isEmpty else { return }
    let (count, expected) = state.withLock { state in
      state.received += chunk.count
      return (state.received, state.expected)
    }
    if let limit = options.maximumBytes, count > limit { throw .responseTooLarge(limit: limit) }
    watch.touch()
    try writer.write(chunk)
    options.progress?(.received(Int64(count), of: expected))
  }

  /// The answer failed: before the head, the caller gets the error; after it, the body
  /// ends with it.
  func fail(_ error: HTTPError) {
    head.finish(.failure(error))
    state.withLock { $0.writer }?.fail(error)
  }
}
