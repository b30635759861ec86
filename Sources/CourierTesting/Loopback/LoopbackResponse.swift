import Courier
import Foundation

/// Writes the response to one request; the server hands one to the handler with the request.
///
/// Send a whole response with one of the `send` methods, or stream one with `writeHead`,
/// `write` and `finish`. A handler that returns without finishing is finished for: a streamed
/// response is ended, and one never started becomes a 500. Use it from one task at a time.
///
/// ```swift
/// try await response.send(json: #"{"page": 1}"#)
///
/// try await response.writeHead(contentLength: 1000)
/// try await response.write(Data(count: 10))
/// response.closeConnection()  // the client sees a truncated body
/// ```
public final class LoopbackResponse: Sendable {
  private enum Phase: Sendable {
    /// Nothing sent yet.
    case pending
    /// The head went out; body bytes follow, counted down when there is a Content-Length.
    case streaming(chunked: Bool, remaining: Int?)
    /// The head was the whole response (HEAD, 204, 304); body writes are dropped.
    case headOnly
    /// The whole response went out.
    case complete
    /// The connection was closed before or after the response.
    case aborted

    var isOpen: Bool {
      switch self {
      case .pending, .streaming: true
      case .headOnly, .complete, .aborted: false
      }
    }
  }

  private struct State: Sendable {
    var phase = Phase.pending
    var closesConnection: Bool
  }

  let connection: any LoopbackWire
  /// The request's method and header fields, which a WebSocket upgrade checks.
  let requestMethod: String
  let requestHeaders: HTTPHeaders
  private let state: Locked<State>

  init(
    connection: any LoopbackWire, method: String, keepAlive: Bool,
    requestHeaders: HTTPHeaders = [:]
  ) {
    self.connection = connection
    requestMethod = method
    self.requestHeaders = requestHeaders
    state = Locked(State(closesConnection: !keepAlive))
  }

  // MARK: - Whole responses

  /// Sends a complete response with `Content-Length`; `headers` add to or override the
  /// defaults, except `Content-Length` and `Transfer-Encoding`, which the server sets.
  public func send(status: Int = 200, headers: HTTPHeaders = [:], body: Data = Data()) async throws
  {
    try await transmitAside(head(status: status, headers: headers, body: body))
  }

  /// Sends a complete `text/plain; charset=utf-8` response.
  public func send(status: Int = 200, headers: HTTPHeaders = [:], text: String) async throws {
    let type: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]
    try await transmitAside(
      head(status: status, headers: type.merging(headers), body: Data(text.utf8)))
  }

  /// Sends a complete `application/json` response.
  public func send(status: Int = 200, headers: HTTPHeaders = [:], json: String) async throws {
    let type: HTTPHeaders = ["Content-Type": "application/json"]
    try await transmitAside(
      head(status: status, headers: type.merging(headers), body: Data(json.utf8)))
  }

  // MARK: - Streamed responses

  /// Starts a streamed response: `Content-Length: contentLength`, or when it is nil,
  /// `Transfer-Encoding: chunked`. The server sets those two headers itself.
  public func writeHead(status: Int = 200, headers: HTTPHeaders = [:], contentLength: Int? = nil)
    async throws
  {
    try await transmitAside(
      start(status: status, headers: headers, contentLength: contentLength, body: nil))
  }

  /// Writes body bytes, as one chunk when the response is chunked.
  ///
  /// Throws if the head has not been sent, the bytes go past `Content-Length`, or the
  /// client has gone away.
  public func write(_ data: Data) async throws {
    var bytes: Data?
    try advance { state in
      switch state.phase {
      case .pending:
        throw LoopbackError("write(_:) called before writeHead")
      case .complete, .aborted:
        throw LoopbackError("write(_:) called after the response ended")
      case .headOnly:
        return
      case .streaming(chunked: true, _):
        if !data.isEmpty { bytes = Self.chunk(data) }  // an empty chunk would end the body
      case .streaming(chunked: false, let remaining):
        let remaining = remaining ?? 0
        guard data.count <= remaining else {
          throw LoopbackError("write(_:) of \(data.count) bytes past Content-Length")
        }
        state.phase =
          data.count == remaining
          ? .complete : .streaming(chunked: false, remaining: remaining - data.count)
        bytes = data
      }
    }
    if let bytes { try await transmitAside(bytes) }
  }

  /// Ends a streamed response: the terminating chunk when chunked. Throws, and closes the
  /// connection, if bytes promised by `Content-Length` are missing.
  public func finish() async throws {
    try await Self.aside { try self.finishStream() }
  }

  // MARK: - Anything at all

  /// Writes `bytes` to the connection exactly as given, then closes it: for responses no
  /// well-behaved server sends (two `Content-Length` fields that disagree, a malformed head),
  /// to see what a client makes of them. Throws if the response was already started.
  ///
  /// ```swift
  /// try await response.sendRaw(Data("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 10\r\n\r\n0123456789".utf8))
  /// ```
  public func sendRaw(_ bytes: Data) async throws {
    try advance { state in
      guard case .pending = state.phase else {
        throw LoopbackError("sendRaw(_:) called after the response was started")
      }
      state.phase = .aborted
    }
    defer { connection.abort() }
    try connection.send(bytes)
  }

  // MARK: - The connection

  /// Closes the TCP connection at once, e.g. mid-body after `writeHead(contentLength: 1000)`
  /// and `write` of 10 bytes.
  public func closeConnection() {
    advance { $0.phase = .aborted }
    connection.abort()
  }

  /// Suspends until the client has closed its side of the connection (end of stream or reset
  /// seen on the socket), returning at once if it already has. Also returns when the
  /// connection is closed by the server, or when the calling task is cancelled.
  public func clientDisconnected() async {
    await connection.peerClosed()
  }

  /// Whether the client is known to have gone away (or the connection has been closed).
  public var isClientDisconnected: Bool {
    connection.isPeerClosed
  }

  // MARK: - Internal

  /// Whether the connection can carry another request after this response.
  var allowsNextRequest: Bool {
    state.withLock { state in
      switch state.phase {
      case .complete, .headOnly: !state.closesConnection
      case .pending, .streaming, .aborted: false
      }
    }
  }

  /// Completes what the handler left open once it has returned, or thrown `error`:
  /// a response never started becomes a 500, an open stream is ended (or cut off after an error).
  func handlerEnded(throwing error: (any Error)?) {
    switch state.withLock({ $0.phase }) {
    case .pending:
      let text = error.map { String(describing: $0) } ?? "handler sent no response"
      let headers: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]
      if let message = try? head(status: 500, headers: headers, body: Data(text.utf8)) {
        try? transmit(message)
      }
    case .streaming(chunked: true, _) where error == nil:
      try? finishStream()
    case .streaming:
      closeConnection()
    case .headOnly, .complete, .aborted:
      break
    }
  }

  /// Ends the response as a switch of protocols, after which no request is read; throws
  /// if it was already started.
  func markUpgraded() throws {
    try advance { state in
      guard case .pending = state.phase else {
        throw LoopbackError("upgradeToWebSocket() called after the response was started")
      }
      state.phase = .complete
      state.closesConnection = true
    }
  }

  /// A whole response's bytes, the state moved on as if they were sent.
  private func head(status: Int, headers: HTTPHeaders, body: Data) throws -> Data {
    try start(status: status, headers: headers, contentLength: body.count, body: body)
  }

  private func finishStream() throws {
    var terminator: Data?
    var missing = 0
    try advance { state in
      switch state.phase {
      case .pending:
        throw LoopbackError("finish() called before writeHead")
      case .aborted:
        throw LoopbackError("finish() called after the connection was closed")
      case .headOnly, .complete:
        return
      case .streaming(chunked: true, _):
        state.phase = .complete
        terminator = Data("0\r\n\r\n".utf8)
      case .streaming(chunked: false, let remaining):
        state.phase = .aborted
        missing = remaining ?? 0
      }
    }
    if let terminator { try transmit(terminator) }
    if missing > 0 {
      connection.abort()
      throw LoopbackError("finish() called with \(missing) bytes of Content-Length unwritten")
    }
  }

  /// The head's bytes, and `body`'s when the response is whole, for the caller to transmit.
  private func start(status: Int, headers: HTTPHeaders, contentLength: Int?, body: Data?) throws
    -> Data
  {
    let carriesBody = Self.statusAllowsBody(status)
    var message = Data()
    try advance { state in
      guard case .pending = state.phase else {
        throw LoopbackError("the response head was already sent")
      }
      let asksToClose = headers.values(for: "Connection").contains {
        $0.lowercased().contains("close")
      }
      state.closesConnection = state.closesConnection || asksToClose
      message = Self.head(
        status: status, headers: headers, contentLength: carriesBody ? contentLength : nil,
        chunked: carriesBody && contentLength == nil, closes: state.closesConnection)
      if !carriesBody || requestMethod == "HEAD" {
        state.phase = .headOnly
      } else if let body {
        state.phase = .complete
        message.append(body)
      } else if contentLength == 0 {
        state.phase = .complete
      } else {
        state.phase = .streaming(chunked: contentLength == nil, remaining: contentLength)
      }
    }
    return message
  }

  /// Runs `change` on the state and, the first time the response stops being open, tells the
  /// server the request has ended, before any final bytes go out (so a client that has the
  /// whole response never sees it still counted as active).
  private func advance(_ change: (inout State) throws -> Void) rethrows {
    let ended = try state.withLock { state in
      let wasOpen = state.phase.isOpen
      try change(&state)
      return wasOpen && !state.phase.isOpen
    }
    if ended { connection.requestEnded() }
  }

  /// Sends `bytes` from a thread outside Swift's cooperative pool (see ``aside(_:)``).
  private func transmitAside(_ bytes: Data) async throws {
    try await Self.aside { try self.transmit(bytes) }
  }

  private func transmit(_ bytes: Data) throws {
    do {
      try connection.send(bytes)
    } catch {
      closeConnection()
      throw error
    }
  }
}
