import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The delegate of one completion-handler task (a download task, or any task on a session
/// Courier does not own): applies the redirect and challenge rules of a ``SessionDelegate``
/// and handles nothing else, since any other delegate method would bring back URLSession's
/// per-chunk callbacks.
final class TaskDelegate: NSObject, URLSessionTaskDelegate, Sendable {
  private let rules: SessionDelegate

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
}
