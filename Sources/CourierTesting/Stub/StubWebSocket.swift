import Courier
import Foundation

/// The server's side of a WebSocket connection a ``StubTransport`` opened in memory (see
/// ``StubTransport/onWebSocket(_:subprotocol:_:)``): what the client sends arrives here,
/// and what this sends the client reads, with no socket in between.
///
/// When the route's handler returns, the connection closes as if the server had sent a
/// close frame (with the client's code when the client closed first, 1000 otherwise);
/// when it throws, the connection drops without one.
public final class StubWebSocket: Sendable {
  typealias Waiter<Value> = CheckedContinuation<Result<Value, HTTPError>, Never>

  struct State: Sendable {
    var toServer: [WebSocketMessage] = []
    var toClient: [WebSocketMessage] = []
    var serverWaiter: CheckedContinuation<WebSocketMessage?, Never>?
    var clientWaiter: Waiter<WebSocketMessage?>?
    var closeWaiters: [CheckedContinuation<Void, Never>] = []
    /// The client's pings waiting for a pong, while pings go unanswered.
    var pingers: [Waiter<Void>] = []
    var answersPings = true
    /// The client's close frame, once sent.
    var clientClose: WebSocketClosure?
    /// The server's close frame, once sent.
    var serverClose: WebSocketClosure?
    /// Why the connection ended without a close handshake, if it did.
    var failure: HTTPError?
  }

  let state = Locked(State())
  let maximumMessageSize: Int

  init(maximumMessageSize: Int) {
    self.maximumMessageSize = maximumMessageSize
  }

  /// The client's close frame, once it has sent one.
  public var closeFrame: WebSocketClosure? { state.withLock { $0.clientClose } }

  /// Sends `message` to the client. A message over the client's limit fails its reader
  /// with `HTTPError.responseTooLarge(limit:)`, as a real connection does.
  public func send(_ message: WebSocketMessage) async throws {
    let waiter = try state.withLock { state -> Waiter<WebSocketMessage?>? in
      guard state.serverClose == nil, state.failure == nil else {
        throw StubWebSocketClosed()
      }
      if message.data.count > maximumMessageSize {
        state.failure = .responseTooLarge(limit: maximumMessageSize)
        state.clientClose = WebSocketClosure(code: .messageTooBig)
        state.serverWaiter?.resume(returning: nil)
        state.serverWaiter = nil
        defer { state.clientWaiter = nil }
        state.clientWaiter?.resume(
          returning: .failure(.responseTooLarge(limit: maximumMessageSize)))
        return nil
      }
      guard let waiter = state.clientWaiter else {
        state.toClient.append(message)
        return nil
      }
      state.clientWaiter = nil
      return waiter
    }
    waiter?.resume(returning: .success(message))
  }

  /// The client's next message; `nil` once the client has closed (``closeFrame``) or the
  /// connection has ended.
  public func receiveMessage() async -> WebSocketMessage? {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> WebSocketMessage?? in
        if !state.toServer.isEmpty { return state.toServer.removeFirst() }
        if state.clientClose != nil || state.serverClose != nil || state.failure != nil {
          return .some(nil)
        }
        state.serverWaiter = continuation
        return nil
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }

  /// Whether the client's pings get a pong (as they do unless told otherwise): a server that
  /// has stopped answering, for tests of keep-alive.
  public var answersPings: Bool {
    get { state.withLock { $0.answersPings } }
    set {
      let pingers = state.withLock { state in
        state.answersPings = newValue
        defer { if newValue { state.pingers = [] } }
        return newValue ? state.pingers : []
      }
      for pinger in pingers { pinger.resume(returning: .success(())) }
    }
  }

  /// Echoes every message back until the client closes.
  public func echoUntilClosed() async throws {
    while let message = await receiveMessage() { try await send(message) }
  }

  /// Sends a close frame with `code` and `reason`: the client's messages end there.
  public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
    end(serverClose: WebSocketClosure(code: code, reason: reason), failure: nil)
  }

  /// Drops the connection without a close frame: the client's reader fails.
  public func drop() {
    end(
      serverClose: nil,
      failure: .transport(URLError(.networkConnectionLost)))
  }

  /// Ends the connection: by the server's close frame, or with a failure.
  func end(serverClose: WebSocketClosure?, failure: HTTPError?) {
    let (client, server, closers, pingers) = state.withLock { state in
      if state.serverClose == nil, state.failure == nil {
        state.serverClose = serverClose
        state.failure = failure
      }
      defer {
        state.clientWaiter = nil
        state.serverWaiter = nil
        state.closeWaiters = []
        state.pingers = []
      }
      return (state.clientWaiter, state.serverWaiter, state.closeWaiters, state.pingers)
    }
    for pinger in pingers {
      pinger.resume(returning: .failure(failure ?? .transport(URLError(.networkConnectionLost))))
    }
    let outcome: Result<WebSocketMessage?, HTTPError> =
      failure.map { .failure($0) } ?? .success(nil)
    client?.resume(returning: outcome)
    server?.resume(returning: nil)
    for closer in closers { closer.resume() }
  }
}

/// A ``StubWebSocket`` sent to after the connection ended.
public struct StubWebSocketClosed: Error, CustomStringConvertible {
  /// What happened.
  public var description: String { "the WebSocket connection has ended" }
}
