import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Makes the download task of a ``DataTaskCall``, driven one of two ways (the platform's
/// choice is ``Driver/platform``); either way URLSession writes the body to disk itself.
enum DownloadTask {
  /// How a download task reports its bytes.
  enum Driver: Sendable {
    /// A completion-handler task, so that URLSession writes the body on its own thread and
    /// keeps nothing in memory: on Linux, a delegate's per-chunk callbacks each hold their
    /// chunk until the delegate queue gets to them, which grew memory by the whole file when
    /// both cores were busy. Redirects still go through the session delegate's policy, by
    /// way of a task delegate that handles nothing else, and progress is read from the size
    /// of the file URLSession is writing, ten times a second (its name is learnt as the
    /// transfer starts; see ``LeftoverDownload``). Only FoundationNetworking writes where it
    /// can be found, so this driver reports progress on Linux only.
    case completionHandler
    /// A delegate-driven task: URLSession reports each write (`didWriteData`), so progress
    /// and the size limit follow the bytes as they reach the disk, and hands the finished
    /// file to the delegate. The callbacks carry counts, not bytes, so on Apple platforms
    /// memory stays flat; no timer runs.
    case sessionDelegate
  }

  static func make(
    session: URLSession, request: URLRequest, call: DataTaskCall, delegate: SessionDelegate,
    driver: Driver, ownsSession: Bool
  ) -> URLSessionTask {
    switch driver {
    case .completionHandler:
      return withCompletionHandler(
        session: session, request: request, call: call, delegate: delegate)
    case .sessionDelegate:
      let task = session.downloadTask(with: request)
      // A borrowed session's delegate is not Courier's: the task's own delegate hands the
      // callbacks over (Apple platforms call task delegates for everything).
      if !ownsSession { task.delegate = StreamingTaskDelegate(delegate) }
      delegate.register(call, for: task)
      // A failed or cancelled download leaves its partial file behind on Linux, where this
      // driver runs only in tests: the file is learnt as the transfer starts, and deleted.
      let leftover = Locked<URL?>(nil)
      call.afterResume.withLock {
        $0 = { task in LeftoverDownload.whenStarted(task) { url in leftover.withLock { $0 = url } }
        }
      }
      call.onEnd.withLock { hook in
        let previous = hook
        hook = {
          previous?()
          if let file = leftover.withLock({ $0 }) { try? FileManager.default.removeItem(at: file) }
        }
      }
      return task
    }
  }

  private static func withCompletionHandler(
    session: URLSession, request: URLRequest, call: DataTaskCall, delegate: SessionDelegate
  ) -> URLSessionTask {
    let poller = DownloadPoller(call: call)
    let made = Locked<URLSessionTask?>(nil)
    let task = session.downloadTask(with: request) { location, response, error in
      poller.stop()
      if let task = made.withLock({ $0 }) { delegate.unregister(task) }
      if let location {
        // URLSession deletes its file once this handler returns (Apple platforms) or never
        // (Linux): either way it becomes the body's own, deleted unless a consumer takes it.
        call.finishedDownload(at: location, response: response)
      } else {
        // A failed or cancelled download leaves its partial file behind on Linux.
        if let leftover = poller.file { try? FileManager.default.removeItem(at: leftover) }
        call.complete(data: nil, response: response, error: error)
      }
    }
    made.withLock { $0 = task }
    task.delegate = TaskDelegate(delegate)
    delegate.register(call, for: task)
    call.afterResume.withLock {
      $0 = { task in
        LeftoverDownload.whenStarted(task) { poller.found($0) }
        poller.start(task)
      }
    }
    return task
  }
}

extension DataTaskCall {
  /// A download task wrote `bytes` to disk, of `expected` (-1 when unknown). Past the limit
  /// the call ends with `responseTooLarge`.
  func wrote(_ bytes: Int64, of expected: Int64) {
    let moved = state.withLock { state in
      guard bytes > state.written else { return false }
      state.written = bytes
      touch(&state)
      return true
    }
    if let maximumBytes, bytes > Int64(maximumBytes) || refuses(expectedLength: expected) {
      return end(with: .responseTooLarge(limit: maximumBytes))
    }
    if moved { progress?(.received(bytes, of: expected >= 0 ? expected : nil)) }
  }

  /// A download task finished writing the body to `location`: it is moved to a file of the
  /// body's own and handed over with the head, unless it is over the limit.
  func finishedDownload(at location: URL, response: URLResponse?) {
    let owned = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-download-\(UUID().uuidString)")
    do {
      try FileManager.default.moveItem(at: location, to: owned)
    } catch {
      try? FileManager.default.removeItem(at: location)
      return complete(.failure(.transport(URLError(.cannotMoveFile))))
    }
    let body = ResponseBody(file: owned)  // deletes the file if nobody takes it
    if let failure = state.withLock({ $0.failure }) { return complete(.failure(failure)) }
    let result = Self.result(data: nil, response: response, error: nil).flatMap {
      head -> Result<TransportResponse, HTTPError> in
      let size =
        (try? FileManager.default.attributesOfItem(atPath: owned.path)[.size])
        .flatMap { $0 as? NSNumber }?.int64Value ?? 0
      if let maximumBytes, size > Int64(maximumBytes) {
        return .failure(.responseTooLarge(limit: maximumBytes))
      }
      progress?(.received(size, of: size))
      return .success(TransportResponse(head: head, body: body))
    }
    complete(result)
  }
}

/// Reports a download task's progress from the size of its file.
///
/// `@unchecked Sendable`: its state is guarded by `lock`.
private final class DownloadPoller: @unchecked Sendable {
  private let call: DataTaskCall
  private let lock = NSLock()
  private var timer: DispatchSourceTimer?
  private var found: URL?
  private var stopped = false

  init(call: DataTaskCall) {
    self.call = call
  }

  /// The file being written, once seen.
  var file: URL? { lock.withLock { found } }

  /// The file being written, as learnt when the transfer started.
  func found(_ url: URL?) {
    guard let url else { return }
    lock.withLock { if found == nil { found = url } }
  }

  func start(_ task: URLSessionTask) {
    let timer = DispatchSource.makeTimerSource(queue: .global())
    timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
    timer.setEventHandler { [weak self, weak task] in
      guard let self, let task else { return }
      self.poll(task)
    }
    let started = lock.withLock {
      guard !stopped else { return false }
      self.timer = timer
      return true
    }
    if started { timer.resume() }
  }

  /// Stops polling; once it returns, no poll is under way or will report again (a poll
  /// reports while holding the lock), so the task's final figures are the last.
  func stop() {
    lock.withLock {
      stopped = true
      timer?.cancel()
      timer = nil
    }
  }

  private func poll(_ task: URLSessionTask) {
    guard let file = lock.withLock({ found }) else { return }
    guard
      let size = try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber
    else { return }
    call.wrote(size.int64Value, of: task.countOfBytesExpectedToReceive)
  }
}
