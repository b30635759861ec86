import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One data task's life, shared by the continuation, URLSession's completion handler, the
/// cancellation handler and the deadline timer, so that the caller is resumed exactly once
/// by whichever comes first.
///
/// Cancellation and deadlines resume the caller themselves, at once, and cancel the task on
/// another queue: URLSession on Linux can deliver the completion a second late when busy,
/// and the late completion then finds the call finished and does nothing.
final class DataTaskCall: Sendable {
  typealias Continuation = CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>

  // `state`, `received`, `touch` and `runningTask` are internal only so that the
  // call's other files (DataTaskCall+Timeouts, DataTaskCall+Result) can use them.
  enum State {
    case waiting
    case running(Continuation, URLSessionTask)
    case endedBeforeStart(HTTPError)
    case finished
  }

  let state = Locked(State.waiting)

  /// What a delegate-driven task has received so far.
  struct Received {
    var response: URLResponse?
    var body = Data()
    /// Body bytes received since the last head, kept or handed on.
    var count = 0
    /// Bytes to reserve for the body once it takes more than one chunk.
    var capacity = 0
    /// Whether the receiver has been given the current head.
    var headDelivered = false
    /// A download task's own file, once known, to delete if the download fails.
    var downloadFile: URL?
    var redirects = 0
    /// The error to report when the task completes, whatever it completes with.
    var failure: HTTPError?
    /// When a byte last moved either way (uptime nanoseconds), for the idle timeout.
    var lastActivity: UInt64 = 0
    /// The task's byte counters when last looked at, for transfers whose bytes Courier does
    /// not see one chunk at a time (a download task, a session without Courier's delegate).
    var countersSeen: Int64 = 0
    /// The bytes a download had written when last reported.
    var written: Int64 = 0
    /// The 401 whose authentication challenge Courier declined: the answer, whatever the
    /// task then completes with.
    var declinedChallenge: URLResponse?
  }

  let received: Locked<Received>

  /// The largest body accepted, in bytes, or `nil` for any.
  let maximumBytes: Int?

  /// Runs right after the task is resumed (a download learns its file's name then).
  let afterResume = Locked<(@Sendable (URLSessionTask) -> Void)?>(nil)

  /// Where a streamed call hands progress, head and body; `nil` to collect the body.
  let receiver: (any TransferReceiver)?

  /// What counts as a credential in this request: such headers never follow a redirect to
  /// another origin.
  let credentials: Credentials

  /// How long the transfer may go without a byte moving, in nanoseconds; `nil` for no limit.
  let idleNanoseconds: UInt64?

  /// When the whole call must have ended (uptime nanoseconds); `nil` for no deadline.
  let deadline: UInt64?

  /// A call for a request that has already been redirected `redirectsSoFar` times, whose
  /// body may hold at most `maximumBytes`, collected or handed to `receiver` as it arrives,
  /// that ends with ``HTTPError/timedOut`` at `deadline` or after `idleTimeout` without a
  /// byte moving.
  init(
    redirectsSoFar: Int = 0, maximumBytes: Int? = nil, receiver: (any TransferReceiver)? = nil,
    credentials: Credentials = Credentials(), deadline: UInt64? = nil,
    idleTimeout: Duration? = nil
  ) {
    received = Locked(
      Received(redirects: redirectsSoFar, lastActivity: DispatchTime.now().uptimeNanoseconds))
    self.maximumBytes = maximumBytes
    self.receiver = receiver
    self.credentials = credentials
    self.deadline = deadline
    idleNanoseconds = idleTimeout.map(Self.nanoseconds)
  }

  /// Whether a response announcing this `Content-Length` (-1 when unknown) is too large.
  func refuses(expectedLength: Int64) -> Bool {
    guard let maximumBytes, expectedLength >= 0 else { return false }
    return expectedLength > Int64(maximumBytes)
  }

  /// Creates the task with `makeTask` and resumes it, unless the call was ended first (by
  /// cancellation or its deadline): then the caller is resumed with that error and no task
  /// is created.
  func start(_ continuation: Continuation, makeTask: () -> URLSessionTask) {
    let outcome: Result<URLSessionTask, HTTPError> = state.withLock { state in
      if case .endedBeforeStart(let error) = state {
        return .failure(error)
      }
      let task = makeTask()
      state = .running(continuation, task)
      return .success(task)
    }
    switch outcome {
    case .success(let task):
      task.resume()
      afterResume.withLock { $0 }?(task)
    case .failure(let error): continuation.resume(returning: .failure(error))
    }
  }

  /// The delegate saw the response head; a malformed head, or a receiver refusing it, ends
  /// the call.
  func receive(_ response: URLResponse) {
    if let http = response as? HTTPURLResponse, Self.hasConflictingLength(http) {
      end(with: .transport(URLError(.badServerResponse)))
      return
    }
    let announced = Int(clamping: response.expectedContentLength)
    received.withLock {
      touch(&$0)
      $0.response = response
      $0.body = Data()
      $0.count = 0
      $0.headDelivered = true
      // Room for the announced body (within the limit), taken when the second chunk comes.
      $0.capacity = announced > 0 ? min(announced, maximumBytes ?? announced) : 0
    }
    guard let receiver else { return }
    do throws(HTTPError) {
      try receiver.received(head: try Self.result(data: nil, response: response, error: nil).get())
    } catch {
      end(with: error)
    }
  }

  /// The delegate saw body bytes; past the limit the call ends with `responseTooLarge` and
  /// the transfer is cancelled, so memory never holds more than the limit. A streamed call
  /// hands them to its receiver.
  func append(_ data: Data) {
    let keeps = receiver == nil
    let tooLarge = received.withLock { received in
      touch(&received)
      if let maximumBytes, received.count + data.count > maximumBytes { return true }
      received.count += data.count
      if keeps {
        if received.body.isEmpty {
          received.body = data  // the first chunk is adopted, not copied
        } else {
          if received.capacity > 0 {
            received.body.reserveCapacity(received.capacity)
            received.capacity = 0
          }
          received.body.append(data)
        }
      }
      return false
    }
    if tooLarge, let maximumBytes {
      end(with: .responseTooLarge(limit: maximumBytes))
      return
    }
    guard let receiver, isRunning else { return }
    do throws(HTTPError) {
      try receiver.received(data)
    } catch {
      end(with: error)
    }
  }

  /// A download task wrote `bytes` to disk, of `expected` (-1 when unknown); `file` is
  /// where, when it could be learnt. Past the limit the call ends with `responseTooLarge`.
  func wrote(_ bytes: Int64, of expected: Int64, response: URLResponse?, file: () -> URL?) {
    let (needsHead, needsFile) = received.withLock { received in
      if bytes > received.written {
        received.written = bytes
        touch(&received)
      }
      return (received.headDelivered == false, received.downloadFile == nil)
    }
    if needsFile, let url = file() { received.withLock { $0.downloadFile = url } }
    if needsHead, let response { receive(response) }
    if let maximumBytes, bytes > Int64(maximumBytes) || refuses(expectedLength: expected) {
      end(with: .responseTooLarge(limit: maximumBytes))
      return
    }
    receiver?.wrote(bytes, of: expected >= 0 ? expected : nil)
  }

  /// A download task finished writing the body to `location`, which is deleted after this.
  func finishedDownload(at location: URL, response: URLResponse?) {
    let needsHead = received.withLock { $0.headDelivered == false }
    if needsHead, let response { receive(response) }
    guard let receiver, isRunning else { return }
    let size = (try? FileManager.default.attributesOfItem(atPath: location.path)[.size])
      .flatMap { $0 as? NSNumber }?.int64Value
    if let size {
      if let maximumBytes, size > Int64(maximumBytes) {
        failOnCompletion(with: .responseTooLarge(limit: maximumBytes))
        return
      }
      receiver.wrote(size, of: size)
    }
    do throws(HTTPError) {
      try receiver.received(file: location)
    } catch {
      failOnCompletion(with: error)
    }
  }

  /// A download task's own file, if one was seen.
  var downloadFile: URL? { received.withLock { $0.downloadFile } }

  /// The delegate saw request body bytes go out.
  func sent(_ bytes: Int64, of expected: Int64) {
    if idleNanoseconds != nil { received.withLock { touch(&$0) } }
    receiver?.sent(bytes, of: expected > 0 ? expected : nil)
  }

  /// Whether the caller is still waiting (not resumed by cancellation, deadline or error).
  private var isRunning: Bool {
    state.withLock { if case .running = $0 { true } else { false } }
  }

  /// The redirects counted so far.
  var redirectCount: Int { received.withLock { $0.redirects } }

  /// The delegate saw a redirect; returns how many so far.
  func countRedirect() -> Int {
    received.withLock { received in
      received.redirects += 1
      return received.redirects
    }
  }

  /// Makes the task's completion, when it comes, fail with `error`.
  func failOnCompletion(with error: HTTPError) {
    received.withLock { $0.failure = error }
  }

  /// The delegate saw the task complete.
  func finishReceiving(error: (any Error)?) {
    let (response, body) = received.withLock { ($0.response, $0.body) }
    complete(data: body, response: response, error: error)
  }

  /// URLSession's completion handler; a failure decided earlier (a refused redirect) wins
  /// over what the task completed with, and a declined challenge's 401 is the answer.
  func complete(data: Data?, response: URLResponse?, error: (any Error)?) {
    let (failure, challenged) = received.withLock { ($0.failure, $0.declinedChallenge) }
    if let failure {
      finish(with: .failure(failure))
    } else if let challenged, (error as? URLError)?.code == .cancelled {
      // FoundationNetworking ends a task whose challenge was declined as cancelled; the
      // caller did not cancel (that would have resumed it already), so the 401 stands,
      // with whatever of its body arrived (a completion-handler task loses it).
      finish(with: Self.result(data: data, response: response ?? challenged, error: nil))
    } else {
      finish(with: Self.result(data: data, response: response, error: error))
    }
  }

  /// Courier declined the authentication challenge of `response` (a 401): it is the answer.
  func declinedChallenge(of response: URLResponse?) {
    received.withLock { $0.declinedChallenge = response ?? $0.response }
  }

  /// Resumes the caller with `result`, unless it was resumed already.
  private func finish(with result: Result<HTTPResponse, HTTPError>) {
    let continuation: Continuation? = state.withLock { state in
      guard case .running(let continuation, _) = state else { return nil }
      state = .finished
      return continuation
    }
    continuation?.resume(returning: result)
  }

  /// The cancellation handler: resumes the caller now with `.cancelled` and cancels the
  /// task elsewhere.
  func cancel() {
    end(with: .cancelled)
  }

  /// Ends the call now with `error` (`.cancelled`, `.timedOut`) unless it has already ended,
  /// and cancels its task on another queue.
  func end(with error: HTTPError) {
    let running: (Continuation, URLSessionTask)? = state.withLock { state in
      switch state {
      case .waiting:
        state = .endedBeforeStart(error)
        return nil
      case .running(let continuation, let task):
        state = .finished
        return (continuation, task)
      case .endedBeforeStart, .finished:
        return nil
      }
    }
    guard let (continuation, task) = running else { return }
    continuation.resume(returning: .failure(error))
    // URLSessionTask.cancel() takes URLSession's internal locks; never do that on the
    // thread that is cancelling a Swift task or firing a timer.
    DispatchQueue.global().async { task.cancel() }
  }
}
