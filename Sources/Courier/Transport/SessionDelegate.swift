import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The delegate of a session that ``URLSessionTransport`` owns: collects each data task's
/// response and body into its ``DataTaskCall``, and decides on redirects.
///
/// FoundationNetworking follows redirects of completion-handler tasks without asking any
/// delegate, so the transport runs delegate-driven tasks to keep credentials home.
///
/// `@unchecked Sendable`: its only state, `calls`, is a lock-guarded box.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  private let calls = Locked<[Int: DataTaskCall]>([:])
  let redirects: RedirectPolicy

  init(redirects: RedirectPolicy) {
    self.redirects = redirects
  }

  /// Routes `task`'s callbacks to `call`; done before the task is resumed.
  func register(_ call: DataTaskCall, for task: URLSessionTask) {
    calls.withLock { $0[task.taskIdentifier] = call }
  }

  private func call(for task: URLSessionTask) -> DataTaskCall? {
    calls.withLock { $0[task.taskIdentifier] }
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    call(for: dataTask)?.receive(response)
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    call(for: dataTask)?.append(data)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    let call = calls.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    call?.finishReceiving(error: error)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    guard case .follow(let maximum) = redirects,
      !Self.resendsBody(status: response.statusCode, original: task.originalRequest)
    else {
      // Not followed here; a 307/308 with a body is re-sent by the transport itself.
      completionHandler(nil)
      return
    }
    guard let call = call(for: task), call.countRedirect() <= maximum else {
      call(for: task)?.end(with: .transport(URLError(.httpTooManyRedirects)))
      completionHandler(nil)
      return
    }
    completionHandler(
      Self.redirected(request, from: task.originalRequest, status: response.statusCode))
  }

  /// Whether a redirect must re-send the body, which FoundationNetworking drops: a 307 or
  /// 308 of a request that has one.
  static func resendsBody(status: Int, original: URLRequest?) -> Bool {
    (status == 307 || status == 308) && !(original?.httpBody?.isEmpty ?? true)
  }

  /// The request to send for a redirect: credentials dropped when it leaves the original
  /// origin, and the body restored for 307/308 (which keep method and body).
  static func redirected(_ request: URLRequest, from original: URLRequest?, status: Int)
    -> URLRequest
  {
    var request = request
    if let original, !URLOrigin.same(original.url, request.url) {
      for name in ["Authorization", "Proxy-Authorization", "Cookie"] {
        request.setValue(nil, forHTTPHeaderField: name)
      }
    }
    if status == 307 || status == 308, let original {
      request.httpMethod = original.httpMethod
      request.httpBody = original.httpBody
    }
    return request
  }
}
