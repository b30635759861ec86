import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The delegate of one completion-handler task on a session ``URLSessionTransport`` borrows
/// on Linux: applies the ``SessionDelegate``'s redirect and challenge rules and handles nothing
/// else, so that no per-chunk callback comes back and the completion handler stays the one
/// place the task ends.
class TaskDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
  // `@unchecked Sendable`: its one property is immutable and Sendable; the class is open to
  // `StreamingTaskDelegate` only.
  let rules: SessionDelegate

  init(_ rules: SessionDelegate) {
    self.rules = rules
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    rules.urlSession(
      session, task: task, willPerformHTTPRedirection: response, newRequest: request,
      completionHandler: completionHandler)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
    completionHandler:
      @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) {
    rules.urlSession(
      session, task: task, didReceive: challenge, completionHandler: completionHandler)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics
  ) {
    rules.urlSession(session, task: task, didFinishCollecting: metrics)
  }
}

/// The delegate of a task on a session ``URLSessionTransport`` borrows on Apple platforms,
/// which call task delegates for everything: hands every callback to the ``SessionDelegate``'s
/// rules, so that such a task streams like one of the transport's own session.
final class StreamingTaskDelegate: TaskDelegate, URLSessionDataDelegate, @unchecked Sendable {
  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    rules.urlSession(
      session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    rules.urlSession(session, dataTask: dataTask, didReceive: data)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
    totalBytesSent: Int64, totalBytesExpectedToSend: Int64
  ) {
    rules.urlSession(
      session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
      totalBytesExpectedToSend: totalBytesExpectedToSend)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    rules.urlSession(session, task: task, didCompleteWithError: error)
  }
}
