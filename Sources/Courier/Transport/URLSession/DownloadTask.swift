import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Makes the download task of a ``DataTaskCall``, when a download is one: how the bytes of a
/// download reach the disk is the platform's choice (``Driver/platform``).
enum DownloadTask {
  /// How a download's bytes reach the disk.
  enum Driver: Sendable {
    /// No download task: the body streams through a data task and Courier writes the file,
    /// as for a resumable download. (Linux's own sessions: FoundationNetworking's download
    /// tasks leave a failed transfer's file behind under a name nothing public reveals.)
    case streamed
    /// A delegate-driven download task: URLSession writes the file and reports each write
    /// (`didWriteData`), so progress, the size limit and the idle timeout follow the bytes
    /// as they reach the disk, and hands the finished file to the delegate. The callbacks
    /// carry counts, not bytes, so memory stays flat. (Apple platforms.)
    case sessionDelegate
    /// A completion-handler download task, for a session Courier borrows on Linux (whose
    /// tasks' per-chunk callbacks never reach Courier): URLSession writes the file; progress
    /// is reported at the end, and the idle timeout watches the task's byte counters. A
    /// failed transfer's partial file is FoundationNetworking's, left where it wrote it.
    case completionHandler
  }

  /// The download task for `request`, or `nil` when the driver streams downloads.
  static func make(
    session: URLSession, request: URLRequest, call: DataTaskCall, delegate: SessionDelegate,
    driver: Driver, ownsSession: Bool
  ) -> URLSessionTask? {
    switch driver {
    case .streamed:
      return nil
    case .sessionDelegate:
      let task = session.downloadTask(with: request)
      // A borrowed session's delegate is not Courier's: the task's own delegate hands the
      // callbacks over (Apple platforms call task delegates for everything).
      if !ownsSession { task.delegate = StreamingTaskDelegate(delegate) }
      delegate.register(call, for: task)
      return task
    case .completionHandler:
      let made = Locked<URLSessionTask?>(nil)
      let task = session.downloadTask(with: request) { location, response, error in
        if let task = made.withLock({ $0 }) { delegate.unregister(task) }
        if let location {
          // URLSession deletes its file once this handler returns (Apple platforms) or never
          // (Linux): either way it becomes the body's own, deleted unless a consumer takes it.
          call.finishedDownload(at: location, response: response)
        } else {
          call.complete(data: nil, response: response, error: error)
        }
      }
      made.withLock { $0 = task }
      task.delegate = TaskDelegate(delegate)
      delegate.register(call, for: task)
      return task
    }
  }
}

extension DataTaskCall {
  /// A download task wrote `bytes` to disk, of `expected` (-1 when unknown). Past the limit
  /// the call ends with `responseTooLarge`.
  func wrote(_ bytes: Int64, of expected: Int64) {
    let moved = state.withLock { state in
      guard bytes > state.written else { return false }
      state.written = bytes
      return true
    }
    if moved { call.touch() }
    if let maximumBytes = options.maximumBytes,
      bytes > Int64(maximumBytes) || refuses(expectedLength: expected)
    {
      return end(with: .responseTooLarge(limit: maximumBytes))
    }
    if moved { options.progress?(.received(bytes, of: expected >= 0 ? expected : nil)) }
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
    let body = TransportResponseBody(file: owned)  // deletes the file if nobody takes it
    if let failure = state.withLock({ $0.failure }) { return complete(.failure(failure)) }
    let result = Self.result(data: nil, response: response, error: nil).flatMap {
      head -> Result<TransportResponse, HTTPError> in
      let size =
        (try? FileManager.default.attributesOfItem(atPath: owned.path)[.size])
        .flatMap { $0 as? NSNumber }?.int64Value ?? 0
      if let maximumBytes = options.maximumBytes, size > Int64(maximumBytes) {
        return .failure(.responseTooLarge(limit: maximumBytes))
      }
      options.progress?(.received(size, of: size))
      return .success(TransportResponse(head: head, body: body))
    }
    complete(result)
  }
}
