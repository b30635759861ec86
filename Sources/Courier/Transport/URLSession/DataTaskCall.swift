import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One URLSession task's life, shared by the continuation, URLSession's callbacks, the
/// cancellation handler, the body's reader and the deadline timer, so that the caller is
/// answered exactly once by whichever comes first.
///
/// The state is a value under a lock; each transition returns an ``Action`` that runs once
/// the lock is released (resuming the caller, writing the body, cancelling the task).
/// Cancellation and deadlines answer the caller themselves, at once, and cancel the task on
/// another queue: URLSession on Linux can deliver the completion a second late when busy,
/// and the late completion then finds the call finished and does nothing.
final class DataTaskCall: Sendable {
  typealias Continuation = CheckedContinuation<Result<TransportResponse, HTTPError>, Never>

  enum Phase {
    /// Not started yet.
    case idle
    /// Cancelled or timed out before it started: no task will be made.
    case endedBeforeStart(HTTPError)
    /// The task runs and the caller waits for the head (or, collecting, the whole body).
    case awaitingHead(Continuation, URLSessionTask)
    /// The caller has the head; the body streams to it.
    case streaming(URLSessionTask, ResponseBodyWriter)
    case finished
  }

  struct State {
    var phase = Phase.idle
    var response: URLResponse?
    /// The body collected so far (collecting, or a redirect the transport follows itself).
    var body = Data()
    /// Body bytes received since the last head.
    var count = 0
    /// Bytes to reserve for the body once it takes more than one chunk.
    var capacity = 0
    var redirects = 0
    /// The error to report when the task completes, whatever it completes with.
    var failure: HTTPError?
    /// The 401 whose authentication challenge Courier declined: the answer, whatever the
    /// task then completes with.
    var declinedChallenge: URLResponse?
    /// When a byte last moved either way (uptime nanoseconds), for the idle timeout.
    var lastActivity: UInt64 = 0
    /// The task's byte counters when last looked at, for transfers whose bytes Courier does
    /// not see one chunk at a time (a download task, a borrowed session on Linux).
    var countersSeen: Int64 = 0
    /// The bytes a download had written when last reported.
    var written: Int64 = 0
    /// When the task was resumed and when its response head arrived, for the timings.
    var startedAt: ContinuousClock.Instant?
    var headAt: ContinuousClock.Instant?
    /// The platform's measurements, when it collects them (Apple platforms).
    var measured: HTTPTimings?
    var timingsReported = false
  }

  /// What to do once the lock is released.
  enum Action {
    case none
    case startTask(URLSessionTask)
    case answer(Continuation, Result<TransportResponse, HTTPError>)
    case answerAndCancel(Continuation, HTTPError, URLSessionTask)
    case write(ResponseBodyWriter, Data)
    case endBody(ResponseBodyWriter, HTTPError?)
    case endBodyAndCancel(ResponseBodyWriter, HTTPError, URLSessionTask)
  }

  let state: Locked<State>
  /// The largest body accepted, in bytes, or `nil` for any.
  let maximumBytes: Int?
  /// Whether the caller wants the whole body before the head.
  let collectsBody: Bool
  /// For a streamed body: the most bytes held in memory for a slow reader.
  let bufferSize: Int
  let progress: (@Sendable (TransportProgress) -> Void)?
  /// Where the exchange's timings go when it ends.
  let timings: (@Sendable (HTTPTimings) -> Void)?
  /// What counts as a credential in this request: such headers never follow a redirect to
  /// another origin.
  let credentials: Credentials
  /// How this request follows redirects.
  let redirects: RedirectPolicy
  /// Whether the request has a body (which a redirect may have to send again).
  let sendsBody: Bool
  /// How long the transfer may go without a byte moving, in nanoseconds; `nil` for no limit.
  let idleNanoseconds: UInt64?
  /// When the whole call must have ended (uptime nanoseconds); `nil` for no deadline.
  let deadline: UInt64?
  /// Whether the transport follows this response itself (a 307 or 308 with a body), so
  /// that its body is collected rather than handed over.
  let followedByTransport: @Sendable (HTTPResponse) -> Bool
  /// Runs right after the task is resumed (a download learns its file's name then).
  let afterResume = Locked<(@Sendable (URLSessionTask) -> Void)?>(nil)
  /// Runs once when the call has ended, however (the transport forgets its deadline).
  let onEnd = Locked<(@Sendable () -> Void)?>(nil)

  /// A call for a request that has already been redirected `redirectsSoFar` times, within
  /// `options`' limits.
  init(
    options: TransportOptions = TransportOptions(), redirects: RedirectPolicy = .default,
    sendsBody: Bool = false, redirectsSoFar: Int = 0, deadline: UInt64? = nil,
    followedByTransport: @escaping @Sendable (HTTPResponse) -> Bool = { _ in false }
  ) {
    state = Locked(
      State(redirects: redirectsSoFar, lastActivity: DispatchTime.now().uptimeNanoseconds))
    maximumBytes = options.maximumBytes
    collectsBody = options.collectsBody
    bufferSize = options.bufferSize
    progress = options.progress
    timings = options.timings
    credentials = options.credentials
    self.redirects = redirects
    self.sendsBody = sendsBody
    idleNanoseconds = options.idleTimeout.map(Self.nanoseconds)
    self.deadline = deadline
    self.followedByTransport = followedByTransport
  }

  /// Whether a response announcing this `Content-Length` (-1 when unknown) is too large.
  func refuses(expectedLength: Int64) -> Bool {
    guard let maximumBytes, expectedLength >= 0 else { return false }
    return expectedLength > Int64(maximumBytes)
  }

  // MARK: - Transitions

  /// Creates the task with `makeTask` and resumes it, unless the call was ended first (by
  /// cancellation or its deadline): then the caller is answered with that error and no
  /// task is created.
  func start(_ continuation: Continuation, makeTask: () -> URLSessionTask) {
    let action = state.withLock { state -> Action in
      switch state.phase {
      case .idle:
        let task = makeTask()
        state.phase = .awaitingHead(continuation, task)
        if timings != nil { state.startedAt = .now }
        return .startTask(task)
      case .endedBeforeStart(let error):
        state.phase = .finished
        return .answer(continuation, .failure(error))
      case .awaitingHead, .streaming, .finished:
        preconditionFailure("DataTaskCall started twice")
      }
    }
    run(action)
    if case .startTask(let task) = action { afterResume.withLock { $0 }?(task) }
  }

  /// The response head arrived. A malformed head, or a `Content-Length` over the limit,
  /// ends the call; otherwise a streamed call hands the head and a body stream over.
  func receive(_ response: URLResponse) {
    let head: HTTPResponse
    switch Self.result(data: nil, response: response, error: nil) {
    case .success(let value): head = value
    case .failure(let error): return end(with: error)
    }
    if refuses(expectedLength: response.expectedContentLength), let maximumBytes {
      return end(with: .responseTooLarge(limit: maximumBytes))
    }
    let collects = collectsBody || followedByTransport(head)
    let announced = Int(clamping: response.expectedContentLength)
    let measuring = timings != nil
    let action = state.withLock { state -> Action in
      touch(&state)
      if measuring, state.headAt == nil { state.headAt = .now }
      state.response = response
      state.body = Data()
      state.count = 0
      // Room for the announced body (within the limit), taken when the second chunk comes.
      state.capacity = announced > 0 ? min(announced, maximumBytes ?? announced) : 0
      guard !collects, case .awaitingHead(let continuation, let task) = state.phase else {
        return .none
      }
      let (body, writer) = ResponseBody.makeStream(bufferSize: bufferSize) { [weak self] in
        self?.end(with: $0)
      }
      state.phase = .streaming(task, writer)
      return .answer(continuation, .success(TransportResponse(head: head, body: body)))
    }
    run(action)
  }

  /// Body bytes arrived; past the limit the call ends with `responseTooLarge` and the
  /// transfer is cancelled, so memory never holds more than the limit.
  func append(_ data: Data) {
    let maximumBytes = self.maximumBytes
    let (action, tooLarge, count, expected) = state.withLock {
      state -> (Action, Bool, Int, Int64?) in
      touch(&state)
      let expected = state.response.map(\.expectedContentLength).flatMap { $0 >= 0 ? $0 : nil }
      if let maximumBytes, state.count + data.count > maximumBytes {
        return (.none, true, state.count, expected)
      }
      state.count += data.count
      switch state.phase {
      case .streaming(_, let writer):
        return (.write(writer, data), false, state.count, expected)
      case .awaitingHead:
        if state.body.isEmpty {
          state.body = data  // the first chunk is adopted, not copied
        } else {
          if state.capacity > 0 {
            state.body.reserveCapacity(state.capacity)
            state.capacity = 0
          }
          state.body.append(data)
        }
        return (.none, false, state.count, expected)
      case .idle, .endedBeforeStart, .finished:
        return (.none, false, state.count, expected)
      }
    }
    if tooLarge, let maximumBytes { return end(with: .responseTooLarge(limit: maximumBytes)) }
    progress?(.received(Int64(count), of: expected))
    run(action)
  }

  /// Request body bytes went out.
  func sent(_ bytes: Int64, of expected: Int64) {
    if idleNanoseconds != nil { state.withLock { touch(&$0) } }
    progress?(.sent(bytes, of: expected > 0 ? expected : nil))
  }

  /// The task completed (its completion handler, or the delegate's): a failure decided
  /// earlier (a refused redirect) wins over what it completed with, and a declined
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
    complete(result.map { TransportResponse(head: $0, body: ResponseBody($0.body)) })
  }

  /// The task completed with `result`: the caller still waiting gets it; a body being
  /// streamed ends with its error, if any.
  func complete(_ result: Result<TransportResponse, HTTPError>) {
    let action = state.withLock { state -> Action in
      switch state.phase {
      case .awaitingHead(let continuation, _):
        state.phase = .finished
        return .answer(continuation, result)
      case .streaming(_, let writer):
        state.phase = .finished
        if case .failure(let error) = result { return .endBody(writer, error) }
        return .endBody(writer, nil)
      case .idle, .endedBeforeStart, .finished:
        return .none
      }
    }
    run(action)
  }

  /// Ends the call now with `error` (`.cancelled`, `.timedOut`, `.responseTooLarge`…)
  /// unless it has already ended, and cancels its task on another queue.
  func end(with error: HTTPError) {
    let action = state.withLock { state -> Action in
      switch state.phase {
      case .idle:
        state.phase = .endedBeforeStart(error)
        return .none
      case .awaitingHead(let continuation, let task):
        state.phase = .finished
        return .answerAndCancel(continuation, error, task)
      case .streaming(let task, let writer):
        state.phase = .finished
        return .endBodyAndCancel(writer, error, task)
      case .endedBeforeStart, .finished:
        return .none
      }
    }
    run(action)
  }

  /// Makes the task's completion, when it comes, fail with `error`.
  func failOnCompletion(with error: HTTPError) {
    state.withLock { $0.failure = error }
  }

  /// Courier declined the authentication challenge of `response` (a 401): it is the answer.
  func declinedChallenge(of response: URLResponse?) {
    state.withLock { $0.declinedChallenge = response ?? $0.response }
  }

  /// The redirects counted so far.
  var redirectCount: Int { state.withLock { $0.redirects } }

  /// The delegate saw a redirect; returns how many so far.
  func countRedirect() -> Int {
    state.withLock { state in
      state.redirects += 1
      return state.redirects
    }
  }
}
