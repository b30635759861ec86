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

  private enum State {
    case waiting
    case running(Continuation, URLSessionTask)
    case endedBeforeStart(HTTPError)
    case finished
  }

  private let state = Locked(State.waiting)

  /// What a delegate-driven task has received so far.
  private struct Received {
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
  }

  private let received: Locked<Received>

  /// The largest body accepted, in bytes, or `nil` for any.
  let maximumBytes: Int?

  /// Runs right after the task is resumed (a download learns its file's name then).
  let afterResume = Locked<(@Sendable (URLSessionTask) -> Void)?>(nil)

  /// Where a streamed call hands progress, head and body; `nil` to collect the body.
  let receiver: (any TransferReceiver)?

  /// A call for a request that has already been redirected `redirectsSoFar` times, whose
  /// body may hold at most `maximumBytes`, collected or handed to `receiver` as it arrives.
  init(
    redirectsSoFar: Int = 0, maximumBytes: Int? = nil, receiver: (any TransferReceiver)? = nil
  ) {
    received = Locked(Received(redirects: redirectsSoFar))
    self.maximumBytes = maximumBytes
    self.receiver = receiver
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

  /// The delegate saw the response head; a receiver refusing it ends the call.
  func receive(_ response: URLResponse) {
    let announced = Int(clamping: response.expectedContentLength)
    received.withLock {
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
    let (needsHead, needsFile) = received.withLock {
      ($0.headDelivered == false, $0.downloadFile == nil)
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
    let (response, body, failure) = received.withLock { ($0.response, $0.body, $0.failure) }
    if let failure {
      finish(with: .failure(failure))
    } else {
      complete(data: body, response: response, error: error)
    }
  }

  /// URLSession's completion handler.
  func complete(data: Data?, response: URLResponse?, error: (any Error)?) {
    finish(with: Self.result(data: data, response: response, error: error))
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

  static func result(data: Data?, response: URLResponse?, error: (any Error)?)
    -> Result<HTTPResponse, HTTPError>
  {
    if let error {
      return .failure(HTTPError(transportFailure: error))
    }
    guard let http = response as? HTTPURLResponse else {
      return .failure(.transport(URLError(.badServerResponse)))
    }
    // URLSession hands headers over as a dictionary: the wire order is lost, and repeated
    // fields (Set-Cookie) arrive joined by ", ". Sorting by name makes equal responses
    // compare equal.
    // Each name is lowercased once, not twice per comparison; names are cast from the
    // AnyHashable's base (a direct cast; `AnyHashable as? String` costs ~4x more).
    var keyed: [(key: String, field: HTTPHeaders.Field)] = []
    for (name, value) in http.allHeaderFields {
      if let name = name.base as? String ?? name as? String, let value = value as? String {
        keyed.append((name.lowercased(), HTTPHeaders.Field(name: name, value: value)))
      }
    }
    keyed.sort { $0.key < $1.key }
    let headers = HTTPHeaders(keyed.map(\.field))
    return .success(
      HTTPResponse(status: http.statusCode, headers: headers, body: data ?? Data(), url: http.url))
  }
}
