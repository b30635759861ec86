import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Makes the download task of a ``DataTaskCall``.
///
/// It is a completion-handler task, so that URLSession writes the body to disk on its own
/// thread and keeps nothing in memory: on Linux, a delegate's per-chunk callbacks each hold
/// their chunk until the delegate queue gets to them, which grew memory by the whole file
/// when both cores were busy. Redirects still go through the session delegate's policy, by
/// way of a task delegate that handles nothing else, and progress is read from the size of
/// the file URLSession is writing, ten times a second (its name is learnt as the transfer
/// starts; see ``LeftoverDownload``).
enum DownloadTask {
  static func make(
    session: URLSession, request: URLRequest, call: DataTaskCall, delegate: SessionDelegate
  ) -> URLSessionTask {
    let poller = DownloadPoller(call: call)
    let made = Locked<URLSessionTask?>(nil)
    let task = session.downloadTask(with: request) { location, response, error in
      poller.stop()
      if let task = made.withLock({ $0 }) { delegate.unregister(task) }
      if let location {
        call.finishedDownload(at: location, response: response)
        // URLSession on Linux never deletes it; the receiver has moved what it wanted.
        try? FileManager.default.removeItem(at: location)
      } else if let leftover = poller.file {
        // A failed or cancelled download leaves its partial file behind on Linux.
        try? FileManager.default.removeItem(at: leftover)
        delegate.onLeftoverRemoved.withLock { $0 }?(leftover)
      }
      call.finishReceiving(error: error)
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
    call.wrote(size.int64Value, of: task.countOfBytesExpectedToReceive, response: nil) { file }
  }
}
