import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Maps one URLSession task's callbacks to its exchange's ``TransportCall``. What it keeps
/// beside the call is URLSession's own: the body collected so far, a failure decided before
/// the task completes, a declined challenge's 401.
final class DataTaskCall: Sendable {
  typealias Continuation = TransportCall<SessionTransfer>.Continuation

  struct State {
    var response: URLResponse?
    /// The body collected so far (when collecting).
    var body = Data()
    /// Bytes to reserve for the body once it takes more than one chunk.
    var capacity = 0
    /// Whether the head went to the caller with the body as a stream: once the stream is
    /// over (read, or cut), bytes URLSession still delivers are dropped, not collected.
    var streams = false
    /// The error to report when the task completes, whatever it completes with.
    var failure: HTTPError?
    /// The 401 whose authentication challenge Courier declined: the answer, whatever the
    /// task then completes with.
    var declinedChallenge: URLResponse?
  }

  let state = Locked(State())
  /// The exchange: its state machine and deadlines.
  let call: TransportCall<SessionTransfer>
  /// The exchange's limits (buffer, deadlines), and where its progress and timings go.
  let options: TransportOptions
  /// The request's method (a HEAD answer announces a body that does not come).
  let method: HTTPMethod
  /// A call of a `method` request within `options`' limits, timed by `timer`.
  init(
    options: TransportOptions = TransportOptions(), method: HTTPMethod = .get,
    timer: DeadlineTimer = DeadlineTimer()
  ) {
    call = TransportCall(options: options, timer: timer)
    self.options = options
    self.method = method
  }

  // MARK: - Callbacks

  /// Makes the task with `makeTask` and resumes it, unless the exchange ended first (by
  /// cancellation or its deadline): then the caller is answered with that error, and no
  /// task is made if that was known before.
  ///
  /// `seesBytes`: whether the task's bytes reach this call one chunk at a time (a
  /// delegate-driven task); otherwise its idle timeout watches the task's byte counters.
  func start(
    _ continuation: Continuation, upload: SessionTransfer.Upload? = nil, seesBytes: Bool = true,
    makeTask: () -> URLSessionTask
  ) {
    call.start(continuation) {
      SessionTransfer(task: makeTask(), call: self, upload: upload, seesBytes: seesBytes)
    }
  }

  /// The response head arrived. A malformed head, or a `Content-Length` over the limit,
  /// ends the call; otherwise a streamed call hands the head and a body stream over.
  func receive(_ response: URLResponse) {
    let head: HTTPResponse
    switch Self.result(data: nil, response: response, error: nil) {
    case .success(let value): head = value
    case .failure(let error): return end(with: error)
    }
    let collects = options.collects(head)
    if collects, let length = head.announcedBodyLength(for: method),
      length > Int64(options.bufferSize)
    {
      return end(with: .responseTooLarge(limit: options.bufferSize))
    }
    call.touch()
    let announced = Int(clamping: response.expectedContentLength)
    state.withLock { state in
      state.response = response
      state.body = Data()
      // Room for the announced body (within the buffer, and at most 64 MiB ahead of the bytes:
      // a length is a claim), taken when the second chunk comes.
      state.capacity = announced > 0 ? min(announced, options.bufferSize, 1 << 26) : 0
      state.streams = !collects
    }
    guard !collects else { return }
    _ = call.receivedHead(head, bufferSize: options.streamBufferSize(for: head))
  }

  /// Body bytes arrived: written to the stream, or collected; a collected body past the
  /// buffer ends the call with `responseTooLarge` and the transfer is cancelled, so memory
  /// never holds more than the buffer.
  func append(_ data: Data) {
    call.touch()
    guard let writer = call.writer else {
      let limit = options.bufferSize
      let tooLarge = state.withLock { state -> Bool in
        // A stream cut or read to its end: what a cancelled task still delivers (Apple's
        // `cancel()` allows a few chunks, FoundationNetworking many) goes nowhere.
        guard !state.streams else { return false }
        guard state.body.count + data.count <= limit else { return true }
        if state.body.isEmpty {
          state.body = data  // the first chunk is adopted, not copied
        } else {
          if state.capacity > 0 {
            state.body.reserveCapacity(state.capacity)
            state.capacity = 0
          }
          state.body.append(data)
        }
        return false
      }
      if tooLarge { end(with: .responseTooLarge(limit: limit)) }
      return
    }
    do throws(HTTPError) {
      try writer.write(data)
    } catch {
      end(with: error)
    }
  }

  /// Request body bytes went out.
  func sent(_ bytes: Int64, of expected: Int64) {
    call.touch()
    options.uploadProgress?(bytes, expected > 0 ? expected : nil)
  }

  /// The task completed (its completion handler, or the delegate's): a failure decided
  /// earlier (a refused challenge) wins over what it completed with, and a declined
  /// challenge's 401 is the answer.
  func complete(data: Data?, response: URLResponse?, error: (any Error)?) {
    let (failure, challenged, collected) = state.withLock {
      ($0.failure, $0.declinedChallenge, $0.body)
    }
    let data = data ?? collected
    let result: Result<HTTPResponse, HTTPError>
    if let failure {
      result = .failure(failure)
    } else if let challenged, (error as? URLError)?.code == .cancelled {
      // FoundationNetworking ends a task whose challenge was declined as cancelled; the
      // caller did not cancel (that would have answered it already), so the 401 stands,
      // with whatever of its body arrived (a completion-handler task loses it).
      result = Self.result(data: data, response: response ?? challenged, error: nil)
    } else {
      result = Self.result(data: data, response: response, error: error)
    }
    call.complete(
      result.map { TransportResponse(head: $0, body: TransportResponseBody($0.body)) })
  }

  /// Ends the call now with `error` (`.cancelled`, `.timedOut`, `.responseTooLarge`…)
  /// unless it has already ended, and cancels its task on another queue.
  func end(with error: HTTPError) {
    call.end(with: error)
  }

  /// Makes the task's completion, when it comes, fail with `error`.
  func failOnCompletion(with error: HTTPError) {
    state.withLock { $0.failure = error }
  }

  /// Courier declined the authentication challenge of `response` (a 401): it is the answer.
  func declinedChallenge(of response: URLResponse?) {
    state.withLock { $0.declinedChallenge = response ?? $0.response }
  }

  // MARK: - Timings

  /// URLSession measured the task (Apple platforms, as a rule before it completes): handed to the
  /// client, which reports them when the exchange ends (Linux collects none; the client's
  /// clock measures the exchange then).
  func collected(_ metrics: URLSessionTaskMetrics) {
    options.timings?(HTTPTimings(metrics))
  }
}
