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
/// deadline and idle timeout (``HTTPError/timedOut``), its size limit
/// (``HTTPError/responseTooLarge(limit:)``, before the body when `Content-Length` is over
/// it), cancellation, and reports progress.
public struct StubTransport: HTTPTransport {
  /// Answers a request.
  public typealias Handler = @Sendable (URLRequest) async throws(HTTPError) -> StubResponse

  private struct Route: Sendable {
    let method: HTTPMethod?
    let path: String?
    let handler: Handler
  }

  private var routes: [Route] = []
  private let recorder = Locked<[URLRequest]>([])
  private let timer = DeadlineTimer()

  /// How long each request waits before it is answered; the wait ends with
  /// ``HTTPError/cancelled`` when the calling task is cancelled.
  public var delay: Duration?

  /// A stub with no routes yet.
  public init(delay: Duration? = nil) {
    self.delay = delay
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
    var copy = self
    copy.routes.append(Route(method: method, path: path, handler: handler))
    return copy
  }

  /// This stub with a closure answering every request no earlier route matched.
  public func fallback(_ handler: @escaping Handler) -> StubTransport {
    var copy = self
    copy.routes.append(Route(method: nil, path: nil, handler: handler))
    return copy
  }

  /// Records the request, waits for `delay`, and answers from the first matching route,
  /// within `options`' limits.
  ///
  /// A body streamed from disk (`.file`, a multipart form with files) is read into the
  /// recorded request's `httpBody`, so handlers and tests can look at it.
  public func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
    -> TransportResponse
  {
    var recorded = request.head
    if let body = request.body {
      let data = try await body.collect()
      recorded.httpBody = data
      options.progress?(.sent(Int64(data.count), of: Int64(data.count)))
    }
    recorder.withLock { $0.append(recorded) }
    let delay = self.delay
    let handler = self.handler(for: recorded)
    let request = recorded
    return try await StubExchange(options: options, timer: timer).run {
      exchange throws(HTTPError) in
      try await exchange.wait(delay)
      try await exchange.answer(try await handler(request), url: request.url)
    }
  }

  /// The first matching route's handler, or one answering 404 with a body that names the
  /// request.
  private func handler(for request: URLRequest) -> Handler {
    let method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
    let path = request.url?.path ?? "/"
    if let route = routes.first(where: { matches($0, method: method, path: path) }) {
      return route.handler
    }
    return { _ throws(HTTPError) in
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
