import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The transport over URLSession: data tasks wrapped in checked continuations, with
/// cancellation and deadlines that reach the URLSessionTask and resume the caller at once.
///
/// By default it owns one long-lived session, made from
/// ``defaultSessionConfiguration(maximumConnectionsPerHost:acceptsCookies:)`` and invalidated
/// when the transport goes away, whose delegate applies the ``RedirectPolicy``, keeps
/// credentials from following a redirect to another origin, refuses redirects to anything
/// but `http` and `https`, and lets a `401` through to the caller whatever its challenge.
///
/// Pass a session of your own to share one; Courier then leaves its lifecycle to you and
/// sends completion-handler tasks, each with a task delegate of Courier's that applies the
/// same redirect and challenge rules. What such a session loses is said at
/// ``init(session:)``.
public final class URLSessionTransport: HTTPTransport {
  /// The session requests go through.
  public let session: URLSession
  private let ownsSession: Bool
  /// Routes each task's callbacks to its call and holds the redirect policy: the session's
  /// delegate when the transport made the session, otherwise only its tasks' delegates'.
  let delegate: SessionDelegate
  private let deadlines = DeadlineTimer()

  /// A transport with a session of its own, made from `configuration` (by default
  /// ``defaultSessionConfiguration(maximumConnectionsPerHost:acceptsCookies:)``), following
  /// redirects as `redirects` says.
  public init(
    configuration: URLSessionConfiguration = URLSessionTransport.defaultSessionConfiguration(),
    redirects: RedirectPolicy = .default
  ) {
    let delegate = SessionDelegate(redirects: redirects)
    session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    self.delegate = delegate
    ownsSession = true
  }

  /// A transport over a session you own; it is never invalidated by Courier.
  ///
  /// Requests go as completion-handler tasks, each with a task delegate of Courier's that
  /// follows redirects by the default ``RedirectPolicy`` (credentials kept home, non-HTTP
  /// targets refused) and lets a `401` through. Courier does not see the body arrive
  /// chunk by chunk, so such a transport holds each body whole before handing it on
  /// (streams and downloads included), checks the size limit only then, and notices an
  /// idle transfer from the task's byte counters (within twice the idle timeout).
  ///
  /// On Linux, give it a session whose configuration has `urlCache = nil` (as
  /// ``defaultSessionConfiguration(maximumConnectionsPerHost:acceptsCookies:)`` does): with a
  /// URL cache, which `.default`, `.ephemeral` and `URLSession.shared` all have,
  /// FoundationNetworking can crash when a task is cancelled right after it starts.
  public init(session: URLSession) {
    self.session = session
    delegate = SessionDelegate(redirects: .default)
    ownsSession = false
  }

  deinit {
    if ownsSession {
      session.finishTasksAndInvalidate()
    }
  }

  /// Courier's default session configuration: no URL cache (on Linux a session with one
  /// can crash when a task is cancelled right after it starts, and it stores nothing
  /// anyway), no cookies unless asked for, and more connections per host than URLSession's
  /// default of 6.
  ///
  /// - Parameters:
  ///   - maximumConnectionsPerHost: Concurrent connections to one host; 32 by default.
  ///     Measured with 64 requests in flight (`Benchmarks/connections.sh`): against a server
  ///     that takes 20 ms, 32 connections carry about 4× the requests of URLSession's 6;
  ///     against one that answers at once the limit makes no difference.
  ///   - acceptsCookies: Whether to store and send cookies; off by default (parsing them
  ///     costs time on every response).
  public static func defaultSessionConfiguration(
    maximumConnectionsPerHost: Int = 32,
    acceptsCookies: Bool = false
  ) -> URLSessionConfiguration {
    let configuration = URLSessionConfiguration.default
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
    if !acceptsCookies {
      configuration.httpCookieAcceptPolicy = .never
      configuration.httpShouldSetCookies = false
      configuration.httpCookieStorage = nil
    }
    return configuration
  }

  /// Sends `request` with a completion-handler data task. Cancelling the calling task
  /// resumes the caller at once with ``HTTPError/cancelled`` and cancels the data task; if
  /// the task is cancelled before the request starts, no data task is created.
  public func send(_ request: URLRequest) async throws(HTTPError) -> HTTPResponse {
    try await send(request, deadlineNanoseconds: nil)
  }

  /// Sends `request` as ``send(_:)`` does, and ends it with ``HTTPError/timedOut`` at
  /// `deadline`, resuming the caller at once and cancelling the data task. One timer serves
  /// every deadline of the transport.
  public func send(_ request: URLRequest, deadline: ContinuousClock.Instant) async throws(HTTPError)
    -> HTTPResponse
  {
    let remaining = DataTaskCall.nanoseconds(ContinuousClock.now.duration(to: deadline))
    let uptime = DispatchTime.now().uptimeNanoseconds
    return try await send(request, deadlineNanoseconds: uptime &+ remaining)
  }

  /// Streams `request`'s upload progress, head and body to `receiver` as they happen, through
  /// the session's delegate; the response size limit applies as bytes arrive. A transport
  /// over a session of your own (``init(session:)``) has no delegate, and hands the body
  /// over whole once it has arrived.
  public func stream(_ request: URLRequest, to receiver: any TransferReceiver)
    async throws(HTTPError) -> HTTPResponse
  {
    guard ownsSession else { return try await sendWhole(request, to: receiver) }
    return try await send(request, deadlineNanoseconds: nil, receiver: receiver)
  }

  /// Downloads with a download task, whose body URLSession writes to disk itself (so memory
  /// stays flat however fast the network is), handing the finished file to `receiver`. On
  /// Linux, where URLSession leaves a failed or cancelled download's file behind, Courier
  /// deletes it. Without a delegate (``init(session:)``), it streams as ``stream(_:to:)``
  /// does.
  public func download(_ request: URLRequest, to receiver: any TransferReceiver)
    async throws(HTTPError) -> HTTPResponse
  {
    guard ownsSession else { return try await stream(request, to: receiver) }
    return try await send(request, deadlineNanoseconds: nil, receiver: receiver, download: true)
  }

  /// Sends `request`, and re-sends it to the `Location` of a redirect that the delegate left
  /// to us because FoundationNetworking would follow it without the body. Redirects followed
  /// here and by the delegate count against one maximum.
  private func send(
    _ request: URLRequest, deadlineNanoseconds: UInt64?, receiver: (any TransferReceiver)? = nil,
    download: Bool = false
  ) async throws(HTTPError) -> HTTPResponse {
    var request = request
    var hops = 0
    let context = TransportContext.current
    while true {
      let (response, redirects) = try await sendOnce(
        request, deadlineNanoseconds: deadlineNanoseconds, redirectsSoFar: hops,
        context: context, receiver: receiver, download: download)
      guard case .follow(let maximum) = delegate.redirects,
        SessionDelegate.resendsBody(status: response.status, original: request),
        let location = response.headers["Location"]
      else { return response }
      let target = try SessionDelegate.redirectTarget(location, from: response.url ?? request.url)
      hops = redirects + 1
      guard hops <= maximum else { throw .transport(URLError(.httpTooManyRedirects)) }
      var next = request
      next.url = target
      request = SessionDelegate.redirected(
        next, from: request, status: response.status, credentials: context.credentials)
    }
  }

  /// One data task: its response, and the redirects counted so far (those before it included).
  private func sendOnce(
    _ request: URLRequest, deadlineNanoseconds: UInt64?, redirectsSoFar: Int,
    context: TransportContext, receiver: (any TransferReceiver)?, download: Bool
  )
    async throws(HTTPError) -> (HTTPResponse, redirects: Int)
  {
    // A body from disk goes as an upload task from a file, so that it has a Content-Length.
    var upload: (url: URL, isTemporary: Bool)?
    if let source = request.bodySource {
      upload = try source.file()
    }
    defer {
      if let upload, upload.isTemporary { try? FileManager.default.removeItem(at: upload.url) }
    }
    let call = DataTaskCall(
      redirectsSoFar: redirectsSoFar,
      maximumBytes: ownsSession ? context.maximumBytes : nil, receiver: receiver,
      credentials: context.credentials, deadline: deadlineNanoseconds,
      idleTimeout: context.idleTimeout)
    let timer = call.firstWake().map { deadlines.schedule(call, at: $0) }
    defer { timer.map(deadlines.cancel) }
    let session = self.session
    let delegate = self.delegate
    let ownsSession = self.ownsSession
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        call.start(continuation) {
          guard ownsSession else {
            return Self.completionHandlerTask(
              session: session, request: request, upload: upload?.url, call: call,
              delegate: delegate)
          }
          let task: URLSessionTask
          if let upload {
            task = session.uploadTask(with: request.withoutBodyStream, fromFile: upload.url)
          } else if download {
            return DownloadTask.make(
              session: session, request: request, call: call, delegate: delegate)
          } else {
            task = session.dataTask(with: request)
          }
          delegate.register(call, for: task)
          return task
        }
      }
    } onCancel: {
      call.cancel()
    }
    return (try result.get(), call.redirectCount)
  }

  /// A task on a session the transport does not own: completion-handler driven, with a
  /// task delegate for redirects and challenges.
  private static func completionHandlerTask(
    session: URLSession, request: URLRequest, upload: URL?, call: DataTaskCall,
    delegate: SessionDelegate
  ) -> URLSessionTask {
    let made = Locked<URLSessionTask?>(nil)
    let handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = {
      if let task = made.withLock({ $0 }) { delegate.unregister(task) }
      call.complete(data: $0, response: $1, error: $2)
    }
    let task =
      upload.map {
        session.uploadTask(
          with: request.withoutBodyStream, fromFile: $0, completionHandler: handler)
      } ?? session.dataTask(with: request, completionHandler: handler)
    made.withLock { $0 = task }
    task.delegate = TaskDelegate(delegate)
    delegate.register(call, for: task)
    return task
  }
}
