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
  /// Called with each leftover download file deleted after a failure (see
  /// ``DownloadTask``); for tests.
  let onLeftoverRemoved = Locked<(@Sendable (URL) -> Void)?>(nil)

  init(redirects: RedirectPolicy) {
    self.redirects = redirects
  }

  /// Routes `task`'s callbacks to `call`; done before the task is resumed.
  func register(_ call: DataTaskCall, for task: URLSessionTask) {
    calls.withLock { $0[task.taskIdentifier] = call }
  }

  /// Stops routing `task`'s callbacks, for tasks that complete through a handler.
  func unregister(_ task: URLSessionTask) {
    _ = calls.withLock { $0.removeValue(forKey: task.taskIdentifier) }
  }

  private func call(for task: URLSessionTask) -> DataTaskCall? {
    calls.withLock { $0[task.taskIdentifier] }
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    guard let call = call(for: dataTask) else {
      completionHandler(.allow)
      return
    }
    call.receive(response)
    completionHandler(.allow)
    if call.refuses(expectedLength: response.expectedContentLength), let limit = call.maximumBytes {
      // Refused before the body is read. (FoundationNetworking never completes a task told
      // `.cancel` here, so the call ends and cancels the task as a cancellation does.)
      call.end(with: .responseTooLarge(limit: limit))
    }
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    call(for: dataTask)?.append(data)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
    totalBytesSent: Int64, totalBytesExpectedToSend: Int64
  ) {
    call(for: task)?.sent(totalBytesSent, of: totalBytesExpectedToSend)
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
      !Self.resendsBody(
        status: response.statusCode, original: task.currentRequest ?? task.originalRequest)
    else {
      // Not followed here; a 307/308 with a body is re-sent by the transport itself.
      completionHandler(nil)
      return
    }
    guard let call = call(for: task), call.countRedirect() <= maximum else {
      // Not followed: the task completes with this 3xx, which the call reports as too many
      // redirects. The task is not cancelled: cancelling a task whose redirect decision is
      // in flight crashes FoundationNetworking ("task not in the registry").
      call(for: task)?.failOnCompletion(with: .transport(URLError(.httpTooManyRedirects)))
      completionHandler(nil)
      return
    }
    completionHandler(
      Self.redirected(request, from: task.originalRequest, status: response.statusCode))
  }

  /// Whether a redirect must re-send the body, which FoundationNetworking drops: a request
  /// with a body, redirected with 307 or 308, or with 301 or 302 unless it is a POST (which
  /// those turn into a GET, as 303 does for every method).
  static func resendsBody(status: Int, original: URLRequest?) -> Bool {
    guard let original, original.hasBody else { return false }
    switch status {
    case 307, 308: return true
    case 301, 302: return original.httpMethod?.uppercased() != "POST"
    default: return false
    }
  }

  /// The request to send for a redirect: credentials dropped when it leaves the original
  /// origin, and method and body restored where FoundationNetworking would drop the body.
  static func redirected(_ request: URLRequest, from original: URLRequest?, status: Int)
    -> URLRequest
  {
    var request = request
    if let original, !URLOrigin.same(original.url, request.url) {
      // Authorization, Proxy-Authorization, Cookie, API-key headers: anything that looks
      // like a credential stays with the origin it was meant for.
      for name in (request.allHTTPHeaderFields ?? [:]).keys where Redaction.isSensitive(name: name)
      {
        request.setValue(nil, forHTTPHeaderField: name)
      }
    }
    if resendsBody(status: status, original: original), let original {
      request.httpMethod = original.httpMethod
      if let stream = original.httpBodyStream {
        request.httpBodyStream = stream
      } else {
        request.httpBody = original.httpBody
      }
    }
    return request
  }
}
