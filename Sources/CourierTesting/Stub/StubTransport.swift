import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// An in-memory transport for unit tests: routes by method and path to canned responses,
/// errors or closures, and records every request it sees.
///
/// ```swift
/// let stub = StubTransport()
///   .on(.get, "/movie/popular", .json(#"{"page":1,"results":[]}"#))
///   .on(.delete, "/movie/1/rating", failing: .timedOut)
/// let client = HTTPClient(baseURL: URL(string: "https://api.test/3")!, transport: stub)
/// _ = try await client.send(MovieApi.popular(page: 1))
/// #expect(stub.requests.count == 1)
/// ```
///
/// Each stub is its own value with its own record, so tests using stubs run in parallel.
/// A request that matches no route gets a 404 whose body names the request.
///
/// It keeps the transport contract as a real transport does, so that what a client does
/// with a slow, large or broken answer can be tested in memory: a ``StubResponse`` can
/// stream its body in chunks and drop mid-body, and the stub honours the request's
/// deadline and idle timeout (`HTTPError.timedOut`), its size limit
/// (`HTTPError.responseTooLarge(limit:)`, before the body when `Content-Length` is over
/// it), cancellation, and reports progress.
public struct StubTransport: HTTPTransport {
  /// Answers a request.
  public typealias Handler = @Sendable (URLRequest) async throws(HTTPError) -> StubResponse

  struct Route: Sendable {
    let method: HTTPMethod?
    let path: String?
    let answer: Answer
  }

  /// How a route answers: with a canned ``StubResponse``, or with a loopback handler run in
  /// memory (the host a request's URL leads to; `nil` is a closed port).
  enum Answer: Sendable {
    case canned(Handler)
    case served(@Sendable (URL?) -> MemoryHost?)
    /// Accepts a WebSocket upgrade, offering `subprotocol`, and runs the handler as the server.
    case webSocket(subprotocol: String?, @Sendable (StubWebSocket) async throws -> Void)
  }

  private var routes: [Route] = []
  let recorder = Locked<[URLRequest]>([])
  private let timer: DeadlineTimer

  /// How long each request waits before it is answered; the wait ends with
  /// `HTTPError.cancelled` when the calling task is cancelled.
  public var delay: Duration?

  /// A stub with no routes yet.
  public init(delay: Duration? = nil) {
    self.init(delay: delay, clock: ContinuousClock())
  }

  /// A stub whose delays, deadlines and idle timeouts run on `clock` (a manual clock, in
  /// tests of time-based rules).
  package init(delay: Duration? = nil, clock: any TransportClock) {
    self.delay = delay
    timer = DeadlineTimer(clock: clock)
  }

  /// Every request sent so far, in the order they arrived.
  public var requests: [URLRequest] { recorder.withLock { $0 } }

  /// This stub with a route answering `method` and `path` with `response`.
  ///
  /// The path matches the request URL's path exactly, or its end at a `/` boundary, so
  /// `"/movie/popular"` matches `https://api.test/3/movie/popular`.
  public func on(_ method: HTTPMethod, _ path: String, _ response: StubResponse) -> StubTransport {
    on(method, path) { _ throws(HTTPError) in response }
  }

  /// This stub with a route failing `method` and `path` with `error`.
  public func on(_ method: HTTPMethod, _ path: String, failing error: HTTPError) -> StubTransport {
    on(method, path) { _ throws(HTTPError) in throw error }
  }

  /// This stub with a route answering `method` and `path` with a closure.
  public func on(_ method: HTTPMethod, _ path: String, handler: @escaping Handler) -> StubTransport
  {
    adding(Route(method: method, path: path, answer: .canned(handler)))
  }

  /// This stub with a closure answering every request no earlier route matched.
  public func fallback(_ handler: @escaping Handler) -> StubTransport {
    adding(Route(method: nil, path: nil, answer: .canned(handler)))
  }

  /// This stub with a ``LoopbackServer`` handler answering, in memory, every request no
  /// earlier route matched: the same handler a loopback server runs, its response read as a
  /// client reads it off a socket (`Content-Length`, chunked, or until the handler closes
  /// the connection), without a socket. Write a fake server once; run it over sockets in
  /// integration tests and in memory in unit tests.
  ///
  /// ```swift
  /// let stub = StubTransport().serving { request, response in
  ///   try await response.writeHead(contentLength: 10)
  ///   try await response.write(Data("first".utf8))
  ///   response.closeConnection()  // the body is cut short
  /// }
  /// ```
  ///
  /// The handler sees the client go away (``LoopbackResponse/clientDisconnected()``) when the
  /// request is cancelled, times out, or its body is no longer read.
  public func serving(_ handler: @escaping LoopbackServer.Handler) -> StubTransport {
    let host = MemoryHost(handler: handler)
    return adding(Route(method: nil, path: nil, answer: .served { _ in host }))
  }

  /// This stub serving the loopback servers of `network` by their ports.
  func serving(_ network: MemoryNetwork) -> StubTransport {
    adding(Route(method: nil, path: nil, answer: .served { network.host(for: $0) }))
  }

  func adding(_ route: Route) -> StubTransport {
    var copy = self
    copy.routes.append(route)
    return copy
  }

  /// Records the request, waits for `delay`, and answers from the first matching route,
  /// within `options`' limits. A redirect is answered like any other response: the client
  /// follows it.
  ///
  /// A body streamed from disk (`.file`, a multipart form with files) is read into the
  /// recorded request's `httpBody`, so handlers and tests can look at it. A request whose
  /// task is cancelled before it starts is neither recorded nor answered.
  public func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
    -> TransportResponse
  {
    guard !Task.isCancelled else { throw .cancelled }
    var recorded = request.head
    let body = try await request.body?.collect()
    if let body {
      recorded.httpBody = body
      options.uploadProgress?(Int64(body.count), Int64(body.count))
    }
    recorder.withLock { $0.append(recorded) }
    return try await respond(to: recorded, body: body, options: options)
  }

  /// Waits for `delay` and answers `request` (recorded already; its body is `body`) from the
  /// first matching route, within `options`' limits.
  func respond(to request: URLRequest, body: Data?, options: TransportOptions)
    async throws(HTTPError) -> TransportResponse
  {
    let delay = self.delay
    let answer = self.answer(for: request)
    let method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
    return try await StubExchange(options: options, method: method, timer: timer).run {
      exchange throws(HTTPError) in
      try await exchange.wait(delay)
      switch answer {
      case .canned(let handler):
        try await exchange.answer(try await handler(request), url: request.url)
      case .served(let host):
        guard let host = host(request.url) else { throw .transport(URLError(.cannotConnectToHost)) }
        try await exchange.serve(request, body: body, by: host)
      case .webSocket:
        try await exchange.answer(
          StubResponse(status: 426, text: "this route takes WebSocket upgrades"), url: request.url)
      }
    }
  }

  /// The first matching route's answer, or one answering 404 with a body that names the
  /// request.
  func answer(for request: URLRequest) -> Answer {
    let method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
    let path = request.url?.path ?? "/"
    if let route = routes.first(where: { matches($0, method: method, path: path) }) {
      return route.answer
    }
    return .canned { _ throws(HTTPError) in
      StubResponse(status: 404, text: "StubTransport has no route for \(method) \(path)")
    }
  }

  private func matches(_ route: Route, method: HTTPMethod, path: String) -> Bool {
    if let routeMethod = route.method, routeMethod != method { return false }
    guard let routePath = route.path else { return true }
    if path == routePath { return true }
    let suffix = routePath.hasPrefix("/") ? routePath : "/" + routePath
    return path.hasSuffix(suffix)
  }
}
