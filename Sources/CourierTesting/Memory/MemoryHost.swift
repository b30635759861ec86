import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A loopback handler answering in memory: what a ``LoopbackServer`` does for a request,
/// without a socket. Each request is a connection of its own, and counted as the server
/// counts them.
final class MemoryHost: Sendable {
  private struct State: Sendable {
    var counters = LoopbackListener.Counters()
    var isStopped = false
  }

  private let handler: LoopbackServer.Handler
  private let state = Locked(State())

  init(handler: @escaping LoopbackServer.Handler) {
    self.handler = handler
  }

  var counters: LoopbackListener.Counters {
    state.withLock { $0.counters }
  }

  /// Refuses every later request, as a stopped server's closed port does.
  func stop() {
    state.withLock { $0.isStopped = true }
  }

  /// Answers `request` (its body already read) with the handler: `connected` gets the wire
  /// before the handler runs, and `receive` what the handler's bytes say as they come.
  func serve(
    _ request: URLRequest, body: Data?, connected: (MemoryWire) -> Void,
    receive: @escaping MemoryWire.Receiver
  ) async throws(HTTPError) {
    let refused = state.withLock { state in
      guard !state.isStopped else { return true }
      state.counters.connections += 1
      state.counters.requests += 1
      state.counters.activeRequests += 1
      state.counters.maximumActiveRequests = max(
        state.counters.maximumActiveRequests, state.counters.activeRequests)
      return false
    }
    if refused { throw .transport(URLError(.cannotConnectToHost)) }
    let method = request.httpMethod ?? "GET"
    let wire = MemoryWire(
      method: method,
      ended: { [state] in
        state.withLock { $0.counters.activeRequests -= 1 }
      }, receive: receive)
    connected(wire)
    let headers = Self.headers(of: request, body: body)
    let response = LoopbackResponse(
      connection: wire, method: method,
      keepAlive: !(headers["Connection"]?.lowercased().contains("close") ?? false))
    do {
      try await handler(
        LoopbackRequest(
          method: method, target: Self.target(of: request.url), headers: headers,
          body: body ?? Data()),
        response)
      response.handlerEnded(throwing: nil)
    } catch {
      response.handlerEnded(throwing: error)
    }
    if response.allowsNextRequest { wire.handlerReturned() } else { wire.abort() }
  }

  /// The request-target a client sends for `url`: its path and query, as encoded.
  private static func target(of url: URL?) -> String {
    guard let url, let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
    else { return "/" }
    let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
    return components.percentEncodedQuery.map { path + "?" + $0 } ?? path
  }

  /// The header fields a client sends: the request's, with `Host`, and `Content-Length`
  /// when there is a body.
  private static func headers(of request: URLRequest, body: Data?) -> HTTPHeaders {
    var headers = HTTPHeaders()
    if let url = request.url, let host = url.host {
      headers.add("Host", url.port.map { "\(host):\($0)" } ?? host)
    }
    for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
      headers.add(name, value)
    }
    if let body, headers["Content-Length"] == nil {
      headers.add("Content-Length", String(body.count))
    }
    return headers
  }
}

/// The in-memory servers of one conformance check, by port: a ``StubTransport`` routes each
/// request to the one its URL names, or refuses it as a closed port would.
final class MemoryNetwork: Sendable {
  private struct State: Sendable {
    var hosts: [Int: MemoryHost] = [:]
    var nextPort = 20_000
  }

  private let state = Locked(State())

  /// Adds a host answering with `handler`, returning its port.
  func add(_ host: MemoryHost) -> Int {
    state.withLock { state in
      defer { state.nextPort += 1 }
      state.hosts[state.nextPort] = host
      return state.nextPort
    }
  }

  /// The host at `url`'s port.
  func host(for url: URL?) -> MemoryHost? {
    guard let port = url?.port else { return nil }
    return state.withLock { $0.hosts[port] }
  }
}
