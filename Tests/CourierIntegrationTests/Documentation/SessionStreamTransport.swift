import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The "Writing a transport" article's complete transport, word for word: keep the two alike.

/// A complete transport on one page: each request is a URLSession data task whose delegate
/// streams the answer to the client, within the options' limits.
final class SessionStreamTransport: HTTPTransport {
  private let delegate = Delegate()
  private let session: URLSession

  init() {
    // Caching and cookies are the client's: the session keeps none of its own.
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    configuration.httpCookieAcceptPolicy = .never
    session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
  }

  deinit { session.finishTasksAndInvalidate() }  // a body still read goes on to its end

  func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
    -> TransportResponse
  {
    var head = request.head
    if let body = request.body { head.httpBody = try await body.collect() }  // sent whole
    let task = session.dataTask(with: head)
    let exchange = Exchange(task: task, method: request.method, options: options)
    delegate.exchanges.withLock { $0[task.taskIdentifier] = exchange }
    do {
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
          exchange.start(continuation)
        }
      } onCancel: {
        exchange.end(.cancelled)
      }
    } catch {
      throw error as? HTTPError ?? .cancelled
    }
  }

  /// One request: its task, its limits, and where its answer goes.
  final class Exchange: Sendable {
    struct State {
      var waiter: CheckedContinuation<TransportResponse, any Error>?
      var writer: TransportResponseBody.Writer?
      var collected: Data?
      var head: HTTPResponse?
      var failure: HTTPError?
      var lastActivity = ContinuousClock.now  // when a byte last moved either way
      var watchdog: Task<Void, Never>?
    }
    let task: URLSessionTask
    let method: HTTPMethod
    let options: TransportOptions
    let state: Lock<State>

    init(task: URLSessionTask, method: HTTPMethod, options: TransportOptions) {
      self.task = task
      self.method = method
      self.options = options
      state = Lock(State())
    }

    /// Starts the task, and a watchdog for its deadline and idle timeout; a caller cancelled
    /// already is answered at once.
    func start(_ waiter: CheckedContinuation<TransportResponse, any Error>) {
      let failure = state.withLock { state in
        if state.failure == nil {
          state.waiter = waiter
          state.watchdog = Task { await self.watchTheClock() }
        }
        return state.failure
      }
      if let failure { return waiter.resume(throwing: failure) }
      task.resume()
    }

    /// Ends the exchange with `error` unless it has ended: URLSession completes the task.
    func end(_ error: HTTPError) {
      state.withLock { if $0.failure == nil { $0.failure = error } }
      task.cancel()
    }

    /// Wakes when the deadline or idle timeout may be due, until the exchange is overdue.
    func watchTheClock() async {
      while let due = state.withLock({ due(after: $0.lastActivity) }) {
        guard due > .now else { return end(.timedOut) }
        try? await Task.sleep(until: due, clock: .continuous)
        if Task.isCancelled { return }
      }
    }

    /// When the exchange runs out of time: at its deadline, or once no byte has moved for
    /// the idle timeout; `nil` for never.
    func due(after lastActivity: ContinuousClock.Instant) -> ContinuousClock.Instant? {
      let idleEnd = options.idleTimeout.map { lastActivity + $0 }
      return [options.deadline, idleEnd].compactMap { $0 }.min()
    }

    func received(_ response: URLResponse) {
      guard let http = response as? HTTPURLResponse else {
        return end(.transport(URLError(.badServerResponse)))
      }
      var fields = HTTPHeaders()
      for case (let name as String, let value as String) in http.allHeaderFields {
        fields.add(name, value)
      }
      let head = HTTPResponse(status: http.statusCode, headers: fields, url: http.url)
      if options.collectsBody {
        let hasBody = method != .head && http.statusCode != 204 && http.statusCode != 304
        if hasBody, http.expectedContentLength > Int64(options.bufferSize) {
          return end(.responseTooLarge(limit: options.bufferSize))
        }
        state.withLock {
          $0.lastActivity = .now
          $0.head = head
          $0.collected = Data()
        }
        return
      }
      let (body, writer) = TransportResponseBody.makeStream(bufferSize: options.bufferSize) {
        [weak self] in self?.end($0)
      }
      let waiter = state.withLock { state -> CheckedContinuation<TransportResponse, any Error>? in
        guard state.failure == nil else { return nil }  // a head after cancel() comes too late
        state.lastActivity = .now
        state.writer = writer
        defer { state.waiter = nil }
        return state.waiter
      }
      waiter?.resume(returning: TransportResponse(head: head, body: body))
    }

    func received(_ data: Data) {
      let (writer, tooLarge) = state.withLock { state -> (TransportResponseBody.Writer?, Bool) in
        guard state.failure == nil else { return (nil, false) }
        state.lastActivity = .now
        guard var collected = state.collected else { return (state.writer, false) }
        guard collected.count + data.count <= options.bufferSize else { return (nil, true) }
        collected.append(data)
        state.collected = collected
        return (nil, false)
      }
      if tooLarge { return end(.responseTooLarge(limit: options.bufferSize)) }
      do throws(HTTPError) { try writer?.write(data) } catch { end(error) }
    }

    func sent(_ bytes: Int64, of expected: Int64) {
      state.withLock { $0.lastActivity = .now }
      options.uploadProgress?(bytes, expected > 0 ? expected : nil)
    }

    func completed(_ error: (any Error)?) {
      let (waiter, writer, head, collected, failure) = state.withLock { state in
        defer { state.waiter = nil }
        state.watchdog?.cancel()
        let failure =
          state.failure
          ?? (error as? URLError).map { $0.code == .timedOut ? .timedOut : .transport($0) }
          ?? error.map { _ in HTTPError.transport(URLError(.unknown)) }
        return (state.waiter, state.writer, state.head, state.collected, failure)
      }
      if let failure {
        waiter?.resume(throwing: failure)
        writer?.fail(failure)
      } else if let head, let collected {
        waiter?.resume(returning: TransportResponse(head: head, body: .init(collected)))
      } else {
        writer?.finish()
      }
    }
  }

  /// URLSession's callbacks, handed to the exchange of their task.
  final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
    let exchanges = Lock<[Int: Exchange]>([:])

    func exchange(_ task: URLSessionTask) -> Exchange? {
      exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
      completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
      exchange(dataTask)?.received(response)
      completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      exchange(dataTask)?.received(data)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
      totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
      exchange(task)?.sent(totalBytesSent, of: totalBytesExpectedToSend)
    }

    // Redirects are the client's: the 3xx is the answer.
    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
      completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
      completionHandler(nil)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
    ) {
      let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
      exchange?.completed(error)
    }
  }
}

/// A value behind a lock.
final class Lock<Value>: @unchecked Sendable {
  private var value: Value
  private let lock = NSLock()

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
