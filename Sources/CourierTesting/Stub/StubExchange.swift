import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One request to a ``StubTransport``, kept to the transport contract by the same
/// per-request machine and deadlines as Courier's own transports (`TransportCall`): the
/// caller gets the head (or the error that comes first: cancellation, a timeout, a refused
/// size), then the body's chunks as the stub delivers them, within the request's limits.
final class StubExchange: Sendable {
  private struct State {
    var work: Task<Void, Never>?
    /// The in-memory connection of a served answer.
    var wire: MemoryWire?
    /// Body bytes delivered so far, and how many the head announced.
    var received = 0
    /// The exchange was stopped (perhaps before its work was made).
    var stopped = false
    /// The most bytes of a collected body (its buffer), once its head has come; `nil` for a
    /// streamed one, whose size limit is the client's.
    var collectionLimit: Int?
  }

  /// The stub's answer as the exchange's transfer: begun in a task of its own, stopped by
  /// cancelling it and closing its in-memory connection.
  struct Work: ExchangeTransfer {
    let exchange: StubExchange
    let answer: @Sendable (StubExchange) async throws(HTTPError) -> Void

    func begin() { exchange.begin(answer) }
    func stop() { exchange.stop() }
    func discard() {}
  }

  private let options: TransportOptions
  /// The request's method (a HEAD answer announces a body that does not come).
  private let method: HTTPMethod
  private let state = Locked(State())
  private let timer: DeadlineTimer
  private let call: TransportCall<Work>

  init(options: TransportOptions, method: HTTPMethod, timer: DeadlineTimer) {
    self.options = options
    self.method = method
    self.timer = timer
    call = TransportCall(options: options, timer: timer)
  }

  /// Runs `answer` in a task of its own and waits for the head, until the answer ends,
  /// times out or the caller is cancelled.
  func run(_ answer: @escaping @Sendable (StubExchange) async throws(HTTPError) -> Void)
    async throws(HTTPError) -> TransportResponse
  {
    let call = self.call
    let outcome = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        call.start(continuation, transfer: Work(exchange: self, answer: answer))
      }
    } onCancel: {
      call.end(with: .cancelled)
    }
    return try outcome.get()
  }

  /// Starts the answer in a task of its own, so that a deadline or the caller's
  /// cancellation ends the wait even when a handler ignores cancellation. Started
  /// immediately, it runs on this thread until it first suspends: a canned answer is ready
  /// without a thread hop. When it is over, a caller still waiting for the head gets an
  /// error rather than waiting for good.
  private func begin(_ answer: @escaping @Sendable (StubExchange) async throws(HTTPError) -> Void) {
    let work = immediateTask {
      do throws(HTTPError) {
        try await answer(self)
      } catch {
        self.fail(error)
      }
      self.call.complete(.failure(.transport(URLError(.badServerResponse))))
    }
    let stopped = state.withLock { state in
      state.work = work
      return state.stopped
    }
    if stopped { work.cancel() }
  }

  /// Stops the answer: its task is cancelled and its connection closed, now or as soon as
  /// they are made.
  private func stop() {
    let (work, wire) = state.withLock { state in
      state.stopped = true
      return (state.work, state.wire)
    }
    wire?.clientGone()
    work?.cancel()
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
  /// chunks, each after the stub's delay, counted against a collected body's buffer.
  func answer(_ stub: StubResponse, url: URL?) async throws(HTTPError) {
    let response = HTTPResponse(status: stub.status, headers: stub.headers, url: url)
    try checkAnnouncedLength(of: response)
    if options.collects(response), stub.chunkDelay == nil, stub.failure == nil {
      let data = stub.body
      if data.count > options.bufferSize { throw .responseTooLarge(limit: options.bufferSize) }
      call.complete(.success(TransportResponse(head: response, body: TransportResponseBody(data))))
      return
    }
    guard let writer = open(response) else { return }
    for chunk in stub.chunks where !chunk.isEmpty {
      try await wait(stub.chunkDelay)
      try deliver(chunk, to: writer)
    }
    endBody(with: stub.failure)
  }

  /// Answers with a loopback handler, in memory: what its response writes is read as a
  /// client reads it off a socket, and handed over as it comes, within the limits.
  func serve(_ request: URLRequest, body: Data?, by host: MemoryHost) async throws(HTTPError) {
    try await host.serve(request, body: body) { [state] wire in
      let stopped = state.withLock { state in
        state.wire = wire
        return state.stopped
      }
      if stopped { wire.clientGone() }
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
        try checkAnnouncedLength(of: response)
        guard open(response) != nil else {
          throw .cancelled
        }
      case .body(let chunk):
        guard let writer = call.writer else { throw .cancelled }
        try deliver(chunk, to: writer)
      case .end:
        endBody(with: nil)
      case .failed(let code):
        throw .transport(URLError(code))
      }
    }
  }

  /// Throws when the head's `Content-Length` is over a collected body's buffer.
  private func checkAnnouncedLength(of response: HTTPResponse) throws(HTTPError) {
    if let limit = collectionLimit(of: response),
      let expected = response.announcedBodyLength(for: method),
      expected > Int64(limit)
    {
      throw .responseTooLarge(limit: limit)
    }
  }

  /// The most bytes of `response`'s body when it is collected (its buffer); `nil` for a
  /// streamed one, whose size limit is the client's, and for a redirect the client follows.
  private func collectionLimit(of response: HTTPResponse) -> Int? {
    options.collects(response) ? options.bufferSize : nil
  }

  /// Hands the head over with a streamed body, returning where the body goes; `nil` when
  /// the caller has already had an answer (an error, or cancellation).
  private func open(_ response: HTTPResponse) -> TransportResponseBody.Writer? {
    let limit = collectionLimit(of: response)
    state.withLock { $0.collectionLimit = limit }
    return call.receivedHead(response, bufferSize: options.streamBufferSize(for: response))
  }

  /// Writes a chunk of the body, counted against a collected body's buffer.
  private func deliver(_ chunk: Data, to writer: TransportResponseBody.Writer) throws(HTTPError) {
    guard !chunk.isEmpty else { return }
    let (count, limit) = state.withLock { state in
      state.received += chunk.count
      return (state.received, state.collectionLimit)
    }
    if let limit, count > limit { throw .responseTooLarge(limit: limit) }
    call.touch()
    try writer.write(chunk)
  }

  /// The streamed body ended, with `failure` if any.
  private func endBody(with failure: HTTPError?) {
    call.complete(
      failure.map { .failure($0) } ?? .success(TransportResponse(HTTPResponse(status: 200))))
  }

  /// The answer failed: before the head, the caller gets the error; after it, the body
  /// ends with it.
  func fail(_ error: HTTPError) {
    call.complete(.failure(error))
  }
}
