import Foundation

/// A small HTTP/1.1 server on 127.0.0.1 for tests: every request goes to one async handler.
///
/// Each server binds its own port, so tests using servers run in parallel. Connections are
/// kept alive between requests, and requests on different connections are handled
/// concurrently. Sockets are read on dedicated threads; handlers run in tasks.
///
/// ```swift
/// let server = try LoopbackServer { request, response in
///   try await response.send(json: #"{"page": \#(request.queryValues("page").first ?? "1")}"#)
/// }
/// defer { server.stop() }
/// let url = server.baseURL.appendingPathComponent("3/movie/popular")
/// ```
public final class LoopbackServer: Sendable {
  /// Answers one request by writing to the response.
  ///
  /// A handler that throws before sending anything produces a 500 with the error's
  /// description; one that returns without finishing its response is finished for.
  public typealias Handler = @Sendable (LoopbackRequest, LoopbackResponse) async throws -> Void

  /// The port the server listens on, picked by the OS (0 on a Unix domain socket).
  public let port: Int
  /// The Unix domain socket the server listens on, if it does.
  public let socketPath: String?
  private let backing: Backing

  /// Sockets on 127.0.0.1, or a host that a ``StubTransport`` answers from in memory.
  private enum Backing: Sendable {
    case sockets(LoopbackListener)
    case memory(MemoryHost)
  }

  /// Binds 127.0.0.1 on a port the OS picks and starts serving. Throws if it cannot bind.
  ///
  /// With `streamsRequestBodies`, a handler gets each request as soon as its head has
  /// arrived, and reads the body as it comes from ``LoopbackRequest/bodyChunks`` (its
  /// ``LoopbackRequest/body`` is empty): for clients that stream a body, or read the answer
  /// while still sending. Otherwise the handler runs once the whole request has arrived.
  public init(streamsRequestBodies: Bool = false, handler: @escaping Handler) throws {
    let (socket, port) = try LoopbackSocket.makeListener()
    self.port = port
    socketPath = nil
    let listener = LoopbackListener(
      socket: socket, streamsBodies: streamsRequestBodies, handler: handler)
    // Before the server is whole: if it throws, no deinit stops a listener never started.
    try listener.start()
    backing = .sockets(listener)
  }

  /// Listens on a new Unix domain socket at `socketPath` (which must not exist; it is removed
  /// when the server stops) and starts serving, as ``init(streamsRequestBodies:handler:)``
  /// does: the server a client reaches at `URL(unixSocketPath: socketPath)`, its
  /// ``baseURL``. Throws if it cannot bind.
  public init(
    socketPath: String, streamsRequestBodies: Bool = false, handler: @escaping Handler
  ) throws {
    let socket = try LoopbackSocket.makeListener(unixSocketPath: socketPath)
    port = 0
    self.socketPath = socketPath
    let listener = LoopbackListener(
      socket: socket, streamsBodies: streamsRequestBodies, handler: handler)
    // Before the server is whole: if it throws, no deinit stops a listener never started.
    try listener.start()
    backing = .sockets(listener)
  }

  /// A server on `network`, in memory: reachable only through a ``StubTransport`` serving
  /// that network, at a port that no socket has.
  init(network: MemoryNetwork, handler: @escaping Handler) {
    let host = MemoryHost(handler: handler)
    backing = .memory(host)
    port = network.add(host)
    socketPath = nil
  }

  deinit {
    stop()
  }

  /// `http://127.0.0.1:PORT`, or for a server on a Unix domain socket its `http+unix` URL.
  public var baseURL: URL {
    if let socketPath { return URL(unixSocketPath: socketPath)! }
    return URL(string: "http://127.0.0.1:\(port)")!
  }

  /// Requests received (read in full) so far, across all connections. A request is counted
  /// before its handler starts.
  public var requestCount: Int {
    counters.requests
  }

  /// Connections accepted so far.
  public var connectionCount: Int {
    counters.connections
  }

  /// Requests being answered right now: from when a request has been read until its
  /// response has ended. A request stops counting before its last bytes are sent, so a
  /// client that has a complete response never sees it still counted.
  public var activeRequests: Int {
    counters.activeRequests
  }

  /// The most requests that were being answered at the same time.
  public var maximumActiveRequests: Int {
    counters.maximumActiveRequests
  }

  /// Stops accepting, closes every connection and frees the port; running handlers are
  /// cancelled. Safe to call more than once; also called when the server is deallocated.
  public func stop() {
    switch backing {
    case .sockets(let listener): listener.stop()
    case .memory(let host): host.stop()
    }
    if let socketPath { unlink(socketPath) }
  }

  private var counters: LoopbackListener.Counters {
    switch backing {
    case .sockets(let listener): listener.counters
    case .memory(let host): host.counters
    }
  }

  /// A port on 127.0.0.1 that nothing listens on, for "connection refused" tests: the same
  /// port every time, bound by a socket the process holds and never listens on, so that no
  /// server (another test's, running in parallel) can take it while a test connects.
  public static func closedPort() throws -> Int {
    try LoopbackSocket.refusingPort()
  }
}
