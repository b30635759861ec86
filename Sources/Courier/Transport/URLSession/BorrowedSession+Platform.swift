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

    /// A completion-handler task, with a task delegate for redirects and challenges.
    static func borrowedSessionTask(
      session: URLSession, request: URLRequest, upload: URL?, call: DataTaskCall,
      delegate: SessionDelegate
    ) -> URLSessionTask {
      let made = Locked<URLSessionTask?>(nil)
      let handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = {
        if let task = made.withLock({ $0 }) { delegate.unregister(task) }
        call.complete(data: $0, response: $1, error: $2)
      }
      let task =
        upload.map { session.uploadTask(with: request, fromFile: $0, completionHandler: handler) }
        ?? session.dataTask(with: request, completionHandler: handler)
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
      session: URLSession, request: URLRequest, upload: URL?, call: DataTaskCall,
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

extension TransportOptions {
  /// These options for a transfer whose body arrives whole: the head waits for it.
  var withoutStreaming: TransportOptions {
    var options = self
    options.collectsBody = true
    return options
  }
}
