import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The transport over URLSession: data tasks wrapped in checked continuations, with
/// cancellation and deadlines that reach the URLSessionTask and resume the caller at once.
///
/// By default it owns one long-lived session, made from
/// ``defaultSessionConfiguration(maximumConnectionsPerHost:acceptsCookies:)`` and invalidated
/// when the transport goes away, whose delegate applies the ``RedirectPolicy`` and keeps
/// credentials from following a redirect to another origin. Pass a session of your own to
/// share one; Courier then leaves its lifecycle, and its redirects, to you (it sends
/// completion-handler tasks, which FoundationNetworking redirects without asking anyone).
public final class URLSessionTransport: HTTPTransport {
  /// The session requests go through.
  public let session: URLSession
  private let ownsSession: Bool
  let delegate: SessionDelegate?
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
  /// On Linux, give it a session whose configuration has `urlCache = nil` (as
  /// ``defaultSessionConfiguration(maximumConnectionsPerHost:acceptsCookies:)`` does): with a
  /// URL cache, which `.default`, `.ephemeral` and `URLSession.shared` all have,
  /// FoundationNetworking can crash when a task is cancelled right after it starts.
  public init(session: URLSession) {
    self.session = session
    delegate = nil
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
    let remaining = ContinuousClock.now.duration(to: deadline)
    let nanoseconds =
      remaining <= .zero
      ? 0
      : remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds
        / 1_000_000_000
    let uptime = DispatchTime.now().uptimeNanoseconds
    return try await send(request, deadlineNanoseconds: uptime &+ UInt64(nanoseconds))
  }

  /// Streams `request`'s upload progress, head and body to `receiver` as they happen, through
  /// the session's delegate; the response size limit applies as bytes arrive. A transport
  /// over a session of your own (``init(session:)``) has no delegate, and hands the body
  /// over whole once it has arrived.
  public func stream(_ request: URLRequest, to receiver: any TransferReceiver)
    async throws(HTTPError) -> HTTPResponse
  {
    guard delegate != nil else { return try await sendWhole(request, to: receiver) }
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
    guard delegate != nil else { return try await stream(request, to: receiver) }
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
    while true {
      let (response, redirects) = try await sendOnce(
        request, deadlineNanoseconds: deadlineNanoseconds, redirectsSoFar: hops,
        receiver: receiver, download: download)
      guard let delegate, case .follow(let maximum) = delegate.redirects,
        SessionDelegate.resendsBody(status: response.status, original: request),
        let location = response.headers["Location"],
        let target = URL(string: location, relativeTo: response.url ?? request.url)?.absoluteURL
      else { return response }
      hops = redirects + 1
      guard hops <= maximum else { throw .transport(URLError(.httpTooManyRedirects)) }
      var next = request
      next.url = target
      request = SessionDelegate.redirected(next, from: request, status: response.status)
    }
  }

  /// One data task: its response, and the redirects counted so far (those before it included).
  private func sendOnce(
    _ request: URLRequest, deadlineNanoseconds: UInt64?, redirectsSoFar: Int,
    receiver: (any TransferReceiver)?, download: Bool
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
      maximumBytes: delegate == nil ? nil : ResponseLimit.maximumBytes, receiver: receiver)
    let timer = deadlineNanoseconds.map { deadlines.schedule(call, at: $0) }
    defer { timer.map(deadlines.cancel) }
    let session = self.session
    let delegate = self.delegate
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        call.start(continuation) {
          guard let delegate else {
            let handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = {
              call.complete(data: $0, response: $1, error: $2)
            }
            if let upload {
              return session.uploadTask(
                with: request.withoutBodyStream, fromFile: upload.url, completionHandler: handler)
            }
            return session.dataTask(with: request, completionHandler: handler)
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
}
