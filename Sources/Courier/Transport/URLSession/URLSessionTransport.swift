import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The transport over URLSession: every request as a URLSession task wrapped in a checked
/// continuation, with cancellation, deadlines and idle timeouts that reach the task and
/// answer the caller at once, the size limit enforced as bytes arrive, and the body streamed
/// to the caller as it arrives (or, for a download, written to disk by URLSession itself).
///
/// It is the default on Apple platforms: clients given no transport share one, made at first
/// use and, like `URLSession.shared`, never invalidated. On Linux the default is `CurlTransport` whenever the system's libcurl loads, and
/// this transport only where it does not or when the environment variable `COURIER_TRANSPORT`
/// is `urlsession`; pass `URLSessionTransport()` to a client to use FoundationNetworking there
/// regardless. What it cannot do on Linux (pause a transfer for a slow reader, stop a body
/// past the size limit at once, trust or pin a server's key) is in <doc:PlatformNotes>.
///
/// By default it owns one long-lived session, made from a configuration (yours, or
/// ``defaultSessionConfiguration(maximumConnectionsPerHost:acceptsCookies:urlCache:waitsForConnectivity:)``) and
/// invalidated when the transport goes away (the shared default never does), whose delegate
/// sees every task: every
/// capability of ``HTTPTransport`` works.
///
/// A session of your own (``init(session:tlsChallenges:)``) keeps its lifecycle with you; Courier
/// gives each of its tasks a task delegate of its own for redirects and challenges. What
/// such a session loses depends on the platform, as said there.
///
/// Redirects are handed back as they came: URLSession is told not to follow them, and
/// ``HTTPClient`` follows them itself, as with every transport (a 307 or 308 sends the body
/// again, where FoundationNetworking would drop it).
public final class URLSessionTransport: HTTPTransport {
  /// The session requests go through.
  ///
  /// Do not invalidate or reset the session of a client given no transport: every such
  /// client in the process shares it. A client that must invalidate its session (at
  /// sign-out, say) should be given a transport of its own, and invalidate it only once no
  /// request can go through it any more: until the platform reports the invalidation, after
  /// the tasks it had have ended, a task made on it stops the process (an exception on Apple
  /// platforms, a fatal error in FoundationNetworking). Once reported, each request fails
  /// with ``HTTPError/invalidRequest(reason:)`` and none is sent.
  public let session: URLSession
  private let ownsSession: Bool
  /// Hands each task's callbacks to its call and applies the redirect and challenge rules:
  /// the session's delegate when the transport made the session, otherwise its tasks'.
  let delegate: SessionDelegate
  /// Times every request's deadline and idle timeout.
  private let deadlines: DeadlineTimer
  /// Why every request fails before it is sent (a background session), if one does.
  private let configurationRefusal: HTTPError?

  /// Why a request fails before it is sent, if it does: the configuration is refused, or
  /// the transport's own session has been invalidated, on which no task can be made.
  var refusal: HTTPError? {
    if let configurationRefusal { return configurationRefusal }
    guard ownsSession, delegate.isInvalidated else { return nil }
    return .invalidRequest(
      reason:
        "this URLSessionTransport's session has been invalidated, and no task can be made on it:"
        + " give a client that must invalidate or reset its session a transport of its own")
  }

  /// A transport with a session of its own, made from `configuration` (by default
  /// ``defaultSessionConfiguration(maximumConnectionsPerHost:acceptsCookies:urlCache:waitsForConnectivity:)``).
  ///
  /// A background configuration (one with an `identifier`) is not supported: URLSession
  /// allows neither data tasks nor completion handlers in background sessions, so every
  /// request through such a transport fails with ``HTTPError/invalidRequest(reason:)`` and none
  /// is sent. No background session is made from it (``session`` is then an ephemeral one
  /// that no request reaches), so it cannot clash with a ``BackgroundSession`` of that
  /// identifier. On Linux, a configuration's URL cache is dropped (see
  /// ``defaultSessionConfiguration(maximumConnectionsPerHost:acceptsCookies:urlCache:waitsForConnectivity:)``).
  ///
  /// `tlsChallenges` answers server-trust and client-certificate challenges with code of your
  /// own; Apple platforms only, see ``TLSChallenge``. It is asked first: what it leaves to the
  /// default (``TLSChallengeAnswer/useDefault``) goes to `trust` and `clientIdentity`.
  ///
  /// `trust`, `minimumTLSVersion`, `clientIdentity` and `proxy` are the values
  /// ``CurlTransport/Configuration`` takes (**Apple platforms only**):
  /// - `trust` (``ServerTrust``, which says what it checks, how a refusal fails, and the App
  ///   Transport Security exception that certificate authorities of your own need) evaluates
  ///   the server-trust challenge on the session's delegate queue, where it may fetch an
  ///   intermediate certificate the server left out. A server it refuses fails a WebSocket's
  ///   opening as it fails a request, the error's description saying which check failed.
  /// - `minimumTLSVersion` becomes the session configuration's
  ///   `tlsMinimumSupportedProtocolVersion`.
  /// - `clientIdentity` answers a server's request for a client certificate (mutual TLS).
  ///   Give it as ``ClientIdentity/pkcs12(_:passphrase:)``: Apple platforms have no public API
  ///   to pair a PEM key with its certificate, so a transport given
  ///   ``ClientIdentity/pem(certificate:key:passphrase:)`` fails every request with
  ///   ``HTTPError/invalidRequest(reason:)`` and sends none. A bundle that does not import (a
  ///   wrong passphrase) fails the request with ``HTTPError/transport(_:)``, a `URLError` of
  ///   `.clientCertificateRejected` whose description says why.
  /// - `proxy` becomes the session configuration's `connectionProxyDictionary` (the
  ///   configuration you pass is left alone, as with `minimumTLSVersion`): an HTTP proxy for
  ///   `http` and `https` (through `CONNECT`), or a SOCKS proxy, with its excluded hosts as the
  ///   dictionary's exceptions. Its user name and password answer the proxy's challenge (a
  ///   `407` from that host and port), once; Apple documents no key for them in the dictionary
  ///   itself.
  ///
  /// On Linux FoundationNetworking sends no TLS challenges (it checks servers against the
  /// system's roots itself), has no minimum TLS version and ignores
  /// `connectionProxyDictionary`, so a transport given any of the four fails every request
  /// with ``HTTPError/invalidRequest(reason:)`` and sends none: use ``CurlTransport``, the
  /// default there, whose configuration takes them all. (A ``ServerTrust`` that asks for
  /// nothing beyond the system's roots is accepted everywhere.)
  public convenience init(
    configuration: URLSessionConfiguration = URLSessionTransport.defaultSessionConfiguration(),
    tlsChallenges: TLSChallengeHandler? = nil,
    trust: ServerTrust? = nil,
    minimumTLSVersion: TLSVersion? = nil,
    clientIdentity: ClientIdentity? = nil,
    proxy: ProxyConfiguration? = nil
  ) {
    self.init(
      configuration: configuration, tlsChallenges: tlsChallenges,
      settings: ConnectionSettings(
        trust: trust, minimumTLSVersion: minimumTLSVersion, clientIdentity: clientIdentity,
        proxy: proxy),
      clock: ContinuousClock())
  }

  /// A transport with a session of its own whose deadlines run on `clock`.
  init(
    configuration: URLSessionConfiguration, tlsChallenges: TLSChallengeHandler? = nil,
    settings: ConnectionSettings = ConnectionSettings(), clock: any TransportClock
  ) {
    deadlines = DeadlineTimer(clock: clock)
    var serverTrust: (@Sendable (URLAuthenticationChallenge) -> ResolvedTrust.Decision)?
    if case .success(let trust) = settings.resolvedTrust {
      serverTrust = { trust.decision(for: $0) }
    }
    let delegate = SessionDelegate(
      tlsChallenges: tlsChallenges,
      clientCredential: settings.clientIdentity.map { ClientCredential($0) },
      proxy: settings.proxy, serverTrust: serverTrust)
    let refusal =
      Self.refusal(of: configuration) ?? settings.refusal(on: ChallengeAnswer.platform)
    // A refused (background) configuration makes no session of its identifier: the system
    // allows one per identifier, and a BackgroundSession of the app may own it. No task ever
    // runs on the ephemeral session made instead.
    session = URLSession(
      configuration: Self.supported(
        refusal == nil ? settings.applied(to: configuration) : .ephemeral),
      delegate: delegate, delegateQueue: nil)
    self.delegate = delegate
    ownsSession = true
    configurationRefusal = refusal
  }

  /// A transport over a session you own; Courier never invalidates it.
  ///
  /// Each task gets a task delegate of Courier's that applies the same redirect and
  /// challenge rules as the transport's own session; the session's own delegate, if any,
  /// is not consulted for those. Downloads are written to disk by URLSession as with the
  /// transport's own session. What differs by platform:
  /// - **Apple platforms**: task delegates receive every callback, so bodies stream, the
  ///   size limit holds as bytes arrive and upload progress is reported: nothing is lost.
  /// - **Linux**: FoundationNetworking calls task delegates only for redirects and
  ///   challenges (its issue 5187), so each task runs with a completion handler: the body
  ///   arrives whole, at the end (spooled to disk by a download task when it is not
  ///   collected into memory) (a byte or event stream gets it in one chunk then, and an
  ///   endless stream never yields), the size limit is checked only then, no upload progress
  ///   is reported, and an idle transfer is noticed from the task's byte counters (within
  ///   twice the idle timeout). Use ``init(configuration:tlsChallenges:trust:minimumTLSVersion:clientIdentity:proxy:)`` with the session's
  ///   configuration to keep every capability.
  ///
  /// On Linux, give it a session whose configuration has `urlCache = nil` (as
  /// ``defaultSessionConfiguration(maximumConnectionsPerHost:acceptsCookies:urlCache:waitsForConnectivity:)`` does): with a
  /// URL cache, which `.default`, `.ephemeral` and `URLSession.shared` all have,
  /// FoundationNetworking can crash when a task is cancelled right after it starts.
  ///
  /// A background session is not supported, as with
  /// ``init(configuration:tlsChallenges:trust:minimumTLSVersion:clientIdentity:proxy:)``; `tlsChallenges` is as there.
  public init(
    session: URLSession, tlsChallenges: TLSChallengeHandler? = nil
  ) {
    self.session = session
    deadlines = DeadlineTimer()
    delegate = SessionDelegate(tlsChallenges: tlsChallenges)
    ownsSession = false
    configurationRefusal = Self.refusal(of: session.configuration)
  }

  /// Why no request can go through a session made from `configuration`, if none can.
  private static func refusal(of configuration: URLSessionConfiguration) -> HTTPError? {
    guard let identifier = configuration.identifier else { return nil }
    return .invalidRequest(
      reason:
        "URLSessionTransport does not support background session configurations (identifier "
        + "\"\(identifier)\"): URLSession allows neither data tasks nor completion handlers "
        + "in them; use a default or ephemeral configuration")
  }

  deinit {
    if ownsSession {
      session.finishTasksAndInvalidate()
    }
  }

  /// Courier's default session configuration: no URL cache unless you give one, no cookies
  /// unless asked for, more connections per host than URLSession's default of 6, and no
  /// request timeout of the session's own (the longest it takes): Courier times each
  /// exchange itself, and a session's 60 seconds would cut a quiet stream that
  /// ``HTTPClient/Configuration/idleTimeout`` lets run.
  ///
  /// - Parameters:
  ///   - maximumConnectionsPerHost: Concurrent connections to one host; 32 by default.
  ///     Measured with 64 requests in flight (`Benchmarks/connections.sh`): against a server
  ///     that takes 20 ms, 32 connections carry about 4× the requests of URLSession's 6;
  ///     against one that answers at once the limit makes no difference.
  ///   - acceptsCookies: Whether to store and send cookies; off by default (parsing them
  ///     costs time on every response).
  ///   - urlCache: A URL cache for URLSession to answer from, as `Cache-Control` allows
  ///     (requests then use `.useProtocolCachePolicy`); none by default. URLSession writes
  ///     to it itself, before Courier sees an answer: Courier's credential rule, which keeps
  ///     an ``HTTPCache`` from writing an answer that holds a secret to disk, does not reach
  ///     it. **Apple platforms only**: on Linux it is ignored, because FoundationNetworking's URLCache stores no
  ///     HTTP response and a session with one can crash when a task is cancelled right after
  ///     it starts.
  ///   - waitsForConnectivity: Whether a request made while the device has no usable
  ///     network waits for one (up to the request's timeout) rather than failing at once
  ///     with `URLError.notConnectedToInternet`; off by default. **Apple platforms only**
  ///     (`URLSessionConfiguration.waitsForConnectivity`); Linux has no such wait and
  ///     ignores it. ``RetryPolicy/retriesOffline`` retries such failures where they are
  ///     reported: Apple platforms, and `CurlTransport` on Linux (FoundationNetworking never
  ///     reports being offline).
  public static func defaultSessionConfiguration(
    maximumConnectionsPerHost: Int = 32,
    acceptsCookies: Bool = false,
    urlCache: URLCache? = nil,
    waitsForConnectivity: Bool = false
  ) -> URLSessionConfiguration {
    let configuration = URLSessionConfiguration.default
    setWaitsForConnectivity(waitsForConnectivity, on: configuration)
    let cache = urlCacheWorks ? urlCache : nil
    configuration.urlCache = cache
    configuration.requestCachePolicy =
      cache == nil ? .reloadIgnoringLocalCacheData : .useProtocolCachePolicy
    configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
    // Courier times each exchange itself and sets each request's timeout to outlast its
    // rules; on Apple platforms a session's shorter timeout may win over the request's.
    configuration.timeoutIntervalForRequest = RequestBuilder.longestTransportTimeout
    if !acceptsCookies {
      configuration.httpCookieAcceptPolicy = .never
      configuration.httpShouldSetCookies = false
      configuration.httpCookieStorage = nil
    }
    return configuration
  }

  /// Sends `request` as one URLSession task within `options`' limits; a redirect is handed
  /// back as it came. Cancelling the calling task answers at once with ``HTTPError/cancelled`` and cancels
  /// the task; if the task is cancelled before the request starts, no URLSession task is
  /// created.
  public func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
    -> TransportResponse
  {
    if let refusal { throw refusal }
    if UnixSocketURL.isUnix(request.head.url?.scheme) {
      throw .invalidRequest(
        reason: "URLSession cannot reach a Unix domain socket (an http+unix URL): use CurlTransport"
      )
    }
    guard !Task.isCancelled else { throw .cancelled }
    var sentHead = request.head
    Self.blankValuesEmptied(&sentHead)
    let timeout = Self.sessionTimeout(of: sentHead, options: options, now: deadlines.clock.now)
    if timeout != sentHead.timeoutInterval { sentHead.timeoutInterval = timeout }
    let streams = ownsSession || Self.borrowedTasksStream
    let call = DataTaskCall(
      options: streams ? options : options.withoutStreaming, method: request.method,
      timer: deadlines)
    // A body in memory goes in the request, and one whole file as an upload task from that
    // file. Anything else — a multipart form with file parts, a stream — goes as a streamed
    // upload task that reads it as it is sent (Apple platforms; its Content-Length set), or
    // else as an upload task from a temporary copy: FoundationNetworking sends a body
    // stream chunked whatever the Content-Length says (both headers, probed with libcurl
    // 7.88), and reads it without waiting (see `streamsRequestBodies`).
    var upload: SessionTransfer.Upload?
    var streamed: StreamedRequestBody?
    if let body = request.body {
      if let data = body.data {
        sentHead.httpBody = data
      } else if body.file == nil && streams && Self.streamsRequestBodies {
        streamed = StreamedRequestBody(body) { call.end(with: $0) }
        if let length = body.length, sentHead.value(forHTTPHeaderField: "Content-Length") == nil {
          sentHead.setValue(String(length), forHTTPHeaderField: "Content-Length")
        }
      } else {
        upload = try await Self.gathered(body, by: options.deadline, clock: deadlines.clock)
      }
    }
    // Again once the body is ready (a copy of it may have taken a while): a session
    // invalidated meanwhile must not be asked for a task.
    if let refusal { throw refusal }
    let priority = Self.priority(for: Task.currentPriority)
    // A body the caller reads as it comes that cannot stream (a borrowed session on Linux)
    // is spooled to disk by a download task rather than gathered in memory.
    let spools = !streams && !options.collectsBody && upload == nil
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        call.start(continuation, upload: upload, seesBytes: streams) {
          let task = makeTask()
          // Set only when it is not the default a task has: FoundationNetworking's setter
          // waits for the session's work queue, which is busy with every transfer's callbacks
          // (8% of a request's wall time and 6% of its CPU with 64 in flight; session 11).
          if priority != URLSessionTask.defaultPriority { task.priority = priority }
          return task
        }
        func makeTask() -> URLSessionTask {
          if let streamed {
            let task = session.uploadTask(withStreamedRequest: sentHead)
            if !ownsSession { task.delegate = StreamingTaskDelegate(delegate) }
            delegate.register(call, for: task)
            delegate.register(streamed, for: task)
            return task
          }
          guard ownsSession else {
            return Self.borrowedSessionTask(
              session: session, request: sentHead, upload: upload?.url, spools: spools, call: call,
              delegate: delegate)
          }
          let task =
            upload.map { session.uploadTask(with: sentHead, fromFile: $0.url) }
            ?? session.dataTask(with: sentHead)
          delegate.register(call, for: task)
          return task
        }
      }
    } onCancel: {
      call.end(with: .cancelled)
    }
    return try result.get()
  }

  /// The URLSession priority of a task started from a Swift task of `priority`: high for
  /// `.high`/`.userInitiated`, low for `.low`/`.utility`/`.background`, the default otherwise.
  static func priority(for priority: TaskPriority) -> Float {
    if priority >= .high { return URLSessionTask.highPriority }
    if priority <= .low { return URLSessionTask.lowPriority }
    return URLSessionTask.defaultPriority
  }
}

extension URLSessionTransport: CustomReflectable {
  /// Whether the transport owns its session, and nothing of the session: a dump would
  /// otherwise read URLSession's live state without its locks (its tasks, and their requests
  /// with their credentials), a race that crashed the process on Linux.
  public var customMirror: Mirror {
    Mirror(self, children: ["ownsSession": ownsSession], displayStyle: .class)
  }
}

extension URLSessionTransport: HoldsCredentials {
  /// The login of the configured proxy, or, when none is configured, of the environment's
  /// proxies on Linux (FoundationNetworking's libcurl reads `http_proxy` and the others
  /// itself); on Apple platforms none: the system's proxy settings apply, and a login the
  /// system supplies for them (from the keychain) is not Courier's to know.
  var heldCredentials: [String] {
    delegate.proxy.map(\.secrets) ?? Redaction.environmentProxyCredentials
  }
}
