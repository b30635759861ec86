import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Tasks on a session the transport borrows (``URLSessionTransport/init(session:tlsChallenges:)``):
/// the one place where the platforms differ on them.
extension URLSessionTransport {
  #if canImport(FoundationNetworking)
    /// Linux: FoundationNetworking calls a task delegate only for redirects and challenges
    /// (its issue 5187), so a borrowed session's body cannot stream: it arrives whole.
    static let borrowedTasksStream = false

    /// A completion-handler task, with a task delegate for redirects and challenges. With
    /// `spools`, a download task: URLSession writes the body to disk, and it is read from
    /// there (a body the caller reads as it comes, which would otherwise arrive in memory).
    static func borrowedSessionTask(
      session: URLSession, request: URLRequest, upload: URL?, spools: Bool, call: DataTaskCall,
      delegate: SessionDelegate
    ) -> URLSessionTask {
      let made = Locked<URLSessionTask?>(nil)
      let handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = {
        if let task = made.withLock({ $0 }) { delegate.unregister(task) }
        call.complete(data: $0, response: $1, error: $2)
      }
      let spooled: @Sendable (URL?, URLResponse?, (any Error)?) -> Void = {
        if let task = made.withLock({ $0 }) { delegate.unregister(task) }
        guard let location = $0 else { return call.complete(data: nil, response: $1, error: $2) }
        call.finishedSpooling(at: location, response: $1)
      }
      let task: URLSessionTask
      if let upload {
        task = session.uploadTask(with: request, fromFile: upload, completionHandler: handler)
      } else if spools {
        task = session.downloadTask(with: request, completionHandler: spooled)
      } else {
        task = session.dataTask(with: request, completionHandler: handler)
      }
      made.withLock { $0 = task }
      task.delegate = TaskDelegate(delegate)
      delegate.register(call, for: task)
      return task
    }
  #else
    /// Apple platforms: a task delegate receives every callback, so a borrowed session's
    /// tasks stream like the transport's own.
    static let borrowedTasksStream = true

    /// A delegate-driven task whose task delegate hands every callback to the call.
    static func borrowedSessionTask(
      session: URLSession, request: URLRequest, upload: URL?, spools: Bool, call: DataTaskCall,
      delegate: SessionDelegate
    ) -> URLSessionTask {
      let task =
        upload.map { session.uploadTask(with: request, fromFile: $0) }
        ?? session.dataTask(with: request)
      task.delegate = StreamingTaskDelegate(delegate)
      delegate.register(call, for: task)
      return task
    }
  #endif
}

#if canImport(FoundationNetworking)
  extension DataTaskCall {
    /// A spooling download task finished writing the body to `location` (Linux, where
    /// FoundationNetworking never deletes it): the file becomes the body's own spool, read in
    /// chunks, unless the body is to be collected and is over the buffer.
    func finishedSpooling(at location: URL, response: URLResponse?) {
      guard let spool = SpoolFile(adopting: location) else {
        return call.complete(.failure(.transport(URLError(.cannotOpenFile))))
      }
      if let failure = state.withLock({ $0.failure }) { return call.complete(.failure(failure)) }
      let result = Self.result(data: nil, response: response, error: nil).flatMap {
        head -> Result<TransportResponse, HTTPError> in
        if options.collectsBody, spool.size > Int64(options.bufferSize) {
          return .failure(.responseTooLarge(limit: options.bufferSize))
        }
        return .success(TransportResponse(head: head, body: TransportResponseBody(spooled: spool)))
      }
      call.complete(result)
    }
  }
#endif
