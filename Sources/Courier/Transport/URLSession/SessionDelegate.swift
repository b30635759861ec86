import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The delegate of a session that ``URLSessionTransport`` owns (and, by way of
/// ``TaskDelegate``, of each task on a session it borrows): hands each task's callbacks to
/// its ``DataTaskCall``, answers challenges, and declines every redirect, which the client
/// follows itself.
///
/// FoundationNetworking follows redirects of completion-handler tasks without asking the
/// session's delegate, so such tasks carry a ``TaskDelegate``.
///
/// `@unchecked Sendable`: its state (`calls`, `streamedBodies`, `rejections`, `invalidated`) is in lock-guarded
/// boxes; the rest is immutable.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  private let calls = Locked<[Int: DataTaskCall]>([:])
  /// The error each task without a call (a WebSocket task) fails with, by task, once Courier
  /// has refused its TLS challenge: URLSession then ends the task as cancelled (-999), which
  /// alone would read as the caller's cancellation. Kept until its task's delegate takes it
  /// (``takeRejection(for:)``) or the task completes here.
  private let rejections = Locked<[Int: HTTPError]>([:])
  /// The bodies of streamed upload tasks (Apple platforms), by task.
  private let streamedBodies = Locked<[Int: StreamedRequestBody]>([:])
  /// Answers TLS challenges (Apple platforms); `nil` for the system's default handling.
  let tlsChallenges: TLSChallengeHandler?
  /// Answers a client-certificate challenge the handler leaves to the default, if any.
  let clientCredential: ClientCredential?
  /// The proxy whose challenge is answered with its user name and password, if any.
  let proxy: ProxyConfiguration?
  /// Answers a server-trust challenge the handler leaves to the default (the transport's
  /// ``ServerTrust``), if any.
  let serverTrust: (@Sendable (URLAuthenticationChallenge) -> ResolvedTrust.Decision)?

  init(
    tlsChallenges: TLSChallengeHandler? = nil, clientCredential: ClientCredential? = nil,
    proxy: ProxyConfiguration? = nil,
    serverTrust: (@Sendable (URLAuthenticationChallenge) -> ResolvedTrust.Decision)? = nil
  ) {
    self.tlsChallenges = tlsChallenges
    self.clientCredential = clientCredential
    self.proxy = proxy
    self.serverTrust = serverTrust
  }

  /// Whether the session this delegates for has been invalidated (by its owner, or by code
  /// that reached it through ``URLSessionTransport/session``): no task may be made on it then
  /// (FoundationNetworking stops the process, Apple platforms raise an exception).
  private let invalidated = Locked(false)

  var isInvalidated: Bool { invalidated.withLock { $0 } }

  /// The tasks it still routes callbacks, bodies or refusals for (tests: none once every
  /// task has completed, however it ended, since a shared session lives as long as the
  /// process).
  var pendingEntries: Int {
    calls.withLock { $0.count } + streamedBodies.withLock { $0.count }
      + rejections.withLock { $0.count }
  }

  func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
    invalidated.withLock { $0 = true }
  }

  /// Routes `task`'s callbacks to `call`; done before the task is resumed.
  func register(_ call: DataTaskCall, for task: URLSessionTask) {
    calls.withLock { $0[task.taskIdentifier] = call }
  }

  /// Stops routing `task`'s callbacks, for tasks that complete through a handler.
  func unregister(_ task: URLSessionTask) {
    _ = calls.withLock { $0.removeValue(forKey: task.taskIdentifier) }
  }

  /// Gives `task` its body from `body` when it asks (`needNewBodyStream`), until it ends.
  func register(_ body: StreamedRequestBody, for task: URLSessionTask) {
    streamedBodies.withLock { $0[task.taskIdentifier] = body }
  }

  func streamedBody(for task: URLSessionTask) -> StreamedRequestBody? {
    streamedBodies.withLock { $0[task.taskIdentifier] }
  }

  func call(for task: URLSessionTask) -> DataTaskCall? {
    calls.withLock { $0[task.taskIdentifier] }
  }

  /// Makes `task` fail with `error` once its TLS challenge, refused, is cancelled: its call's
  /// completion, or else (a task without a call) whoever takes the rejection. Done before the
  /// challenge's completion handler is called, so that it is there when the task completes.
  func reject(_ task: URLSessionTask, with error: HTTPError) {
    if let call = call(for: task) {
      call.failOnCompletion(with: error)
    } else {
      rejections.withLock { $0[task.taskIdentifier] = error }
    }
  }

  /// The error `task`, which has no call, was refused with (``reject(_:with:)``), if any; taken,
  /// so that it is read once.
  func takeRejection(for task: URLSessionTask) -> HTTPError? {
    rejections.withLock { $0.removeValue(forKey: task.taskIdentifier) }
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    // Always allowed: FoundationNetworking never completes a task told `.cancel` here, so a
    // call that refuses the response (too large) ends itself and cancels the task.
    completionHandler(.allow)
    call(for: dataTask)?.receive(response)
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

  /// Apple platforms: URLSession's measurements, delivered before the task completes as a
  /// rule. (FoundationNetworking never calls this; the client measures on its own clock.)
  func urlSession(
    _ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics
  ) {
    call(for: task)?.collected(metrics)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    let call = calls.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    streamedBodies.withLock { $0.removeValue(forKey: task.taskIdentifier) }?.stop()
    guard let call else {
      // A task without a call whose own delegate did not take its rejection: it goes with it.
      _ = takeRejection(for: task)
      return
    }
    call.complete(data: nil, response: task.response, error: error)
  }

  /// Answers every challenge, so that none leaves a task waiting: a server-trust or
  /// client-certificate challenge goes to the transport's ``TLSChallengeHandler`` (or gets
  /// the platform's default handling without one), a challenge from the transport's
  /// configured proxy gets its user name and password (once), and an HTTP
  /// authentication challenge (a `401` with `WWW-Authenticate: Basic`…) is declined, so the
  /// caller gets the 401 itself — credentials are middleware's business (see
  /// ``BearerAuthentication``).
  ///
  /// How each platform declines, and why, is ``ChallengeAnswer/httpAuthentication(on:proxy:)``'s;
  /// where FoundationNetworking then ends the task as cancelled, the call turns that back into
  /// the 401.
  func urlSession(
    _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
    completionHandler:
      @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) {
    if let tls = TLSChallenge(challenge) {
      return answer(tls, of: task, completionHandler: completionHandler)
    }
    let space = challenge.protectionSpace
    if space.isProxy(),
      let given = proxy?.credential(
        forProxyHost: space.host, port: space.port,
        previousFailureCount: challenge.previousFailureCount)
    {
      let credential = URLCredential(
        user: given.user, password: given.password, persistence: .forSession)
      return completionHandler(.useCredential, credential)
    }
    let answer = ChallengeAnswer.answer(to: challenge)
    if answer.declines {
      call(for: task)?.declinedChallenge(of: challenge.failureResponse ?? task.response)
    }
    completionHandler(answer.disposition, nil)
  }

  /// Hands a TLS challenge to the handler first; a client-certificate challenge it leaves to
  /// the default gets the transport's client identity, and a server-trust challenge it leaves
  /// to the default is evaluated by the transport's ``ServerTrust``, if it has them. A
  /// rejection (or an identity that cannot be presented, a server the trust refuses) fails the
  /// request, or the WebSocket's opening, with its own error (``reject(_:with:)``) rather than
  /// the cancellation URLSession completes the task with.
  private func answer(
    _ challenge: TLSChallenge, of task: URLSessionTask,
    completionHandler: @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) {
    // The credential to answer with, or the error to refuse with; `nil` for the default.
    let answer: Result<URLCredential, HTTPError>?
    switch (tlsChallenges?(challenge) ?? .useDefault, challenge.kind) {
    case (.use(let credential), _): answer = .success(credential)
    case (.reject, _): answer = .failure(challenge.rejection)
    case (.useDefault, .clientCertificate): answer = clientCredential?.result
    case (.useDefault, .serverTrust):
      switch serverTrust?(challenge.challenge) {
      case .use(let credential)?: answer = .success(credential)
      case .refuse(let error)?: answer = .failure(error)
      case .performDefaultHandling?, nil: answer = nil
      }
    }
    switch answer {
    case .success(let credential)?:
      completionHandler(.useCredential, credential)
    case .failure(let error)?:
      reject(task, with: error)
      completionHandler(.cancelAuthenticationChallenge, nil)
    case nil:
      completionHandler(.performDefaultHandling, nil)
    }
  }

  /// Never follows: the task completes with the redirect, which the transport hands back as
  /// it came and ``HTTPClient`` follows by its one redirect decision, re-sending a body where
  /// FoundationNetworking would drop it and keeping credentials home.
  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }
}
