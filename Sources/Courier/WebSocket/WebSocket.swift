import Foundation

/// An open WebSocket connection (RFC 6455), from ``HTTPClient/webSocket(_:subprotocols:settings:reconnection:)``:
/// messages in as an `AsyncSequence`, messages out with `send`, and the close handshake.
///
/// ```swift
/// let socket = try await client.webSocket(ChatApi.room(42))
/// try await socket.send(json: Say(text: "hello"))
/// for try await event in socket.messages(as: ChatEvent.self) {
///   print(event)
/// }
/// print(socket.closure?.code ?? .abnormalClosure)
/// ```
///
/// - Receiving: ``messages`` ends when the server closes the connection with a close frame
///   (``closure`` then holds its code and reason) and throws when the connection fails.
///   Cancelling the task that reads closes the connection. The messages end only once
///   Courier's answer to the server's close frame is written, so a socket let go when its
///   loop ends has completed the close handshake; one let go while the connection is open
///   ends it at once.
/// - Keep-alive: a ping goes out every ``Settings/pingInterval``; a pong that does not come
///   within the next interval ends the connection with ``HTTPError/timedOut``.
/// - Reconnection (off by default): with a ``ReconnectionPolicy`` that reconnects, a
///   connection that drops, or that the server closes with 1001, 1011, 1012 or 1013, is
///   opened again after the policy's delay, and ``messages`` goes on with the new one.
///   Messages sent meanwhile fail; nothing is sent again for you.
public final class WebSocket: Sendable {
  /// How a connection behaves once it is open.
  public struct Settings: Sendable {
    /// The largest message accepted; a larger one closes the connection with 1009 and
    /// fails with ``HTTPError/responseTooLarge(limit:)``. 1 MiB by default.
    public var maximumMessageSize: Int
    /// How often to ping the server to keep the connection alive and notice when it has
    /// gone; `nil` for never. 30 seconds by default.
    public var pingInterval: Duration?
    /// How long ``WebSocket/close(_:reason:)`` waits for the server's close frame before it
    /// drops the connection. 5 seconds by default.
    public var closeTimeout: Duration

    /// Refuses settings no connection can keep: a size limit or interval that is not
    /// positive, a negative close timeout.
    func check() throws(HTTPError) {
      guard maximumMessageSize > 0 else {
        throw .invalidRequest(reason: "maximumMessageSize must be positive")
      }
      if let pingInterval, pingInterval <= .zero {
        throw .invalidRequest(reason: "pingInterval must be positive (nil for no pings)")
      }
      guard closeTimeout >= .zero else {
        throw .invalidRequest(reason: "closeTimeout must not be negative")
      }
    }

    /// Settings with the given values; ones no connection can keep (a limit or interval that
    /// is not positive) make ``HTTPClient/webSocket(_:subprotocols:settings:reconnection:)``
    /// throw ``HTTPError/invalidRequest(reason:)``.
    public init(
      maximumMessageSize: Int = 1 << 20, pingInterval: Duration? = .seconds(30),
      closeTimeout: Duration = .seconds(5)
    ) {
      self.maximumMessageSize = maximumMessageSize
      self.pingInterval = pingInterval
      self.closeTimeout = closeTimeout
    }
  }

  /// Opens a connection (again).
  typealias Connect = @Sendable () async throws(HTTPError) -> TransportWebSocket

  struct State: Sendable {
    var current: TransportWebSocket
    /// Counts connections, so that one reconnection serves every caller that saw the drop.
    var generation = 0
    /// Connections that keep-alive gave up on.
    var timedOut: Set<Int> = []
    var closedByCaller = false
    /// The current connection's keep-alive, while it pings.
    var keepAlive: KeepAlive?
  }

  let state: Locked<State>
  let connect: Connect
  let reconnection: ReconnectionPolicy
  let settings: Settings
  let clock: any TransportClock
  /// What times the keep-alive and the close timeout: the timer every connection shares, or
  /// on a test's clock one of the socket's own.
  let timer: DeadlineTimer

  init(
    _ first: TransportWebSocket, settings: Settings, reconnection: ReconnectionPolicy,
    clock: any TransportClock, connect: @escaping Connect
  ) {
    state = Locked(State(current: first))
    self.connect = connect
    self.reconnection = reconnection
    self.settings = settings
    self.clock = clock
    timer = clock is ContinuousClock ? ChannelWebSocket.timer : DeadlineTimer(clock: clock)
    startKeepAlive()
  }

  deinit {
    let (connection, keepAlive) = state.withLock { ($0.current.connection, $0.keepAlive.take()) }
    keepAlive?.stop()
    connection.cancel()
  }

  /// The server's answer to the upgrade (status `101` and its headers).
  public var response: HTTPResponse { state.withLock { $0.current.response } }
  /// The subprotocol the server chose from those offered, if any.
  public var subprotocol: String? { state.withLock { $0.current.subprotocol } }
  /// The server's close frame, once it has closed the connection: its code and reason.
  public var closure: WebSocketClosure? { state.withLock { $0.current.connection }.peerClosure }
  /// How many times the connection has been opened again.
  public var reconnections: Int { state.withLock { $0.generation } }

  // MARK: - Sending

  /// Sends a message; returns once it is on its way: queued behind at most a few hundred
  /// KiB, or else written to the network (a server that does not read holds the sender
  /// back). A message queued when the connection then fails is lost with it. Cancelling the
  /// sending task closes the connection.
  public func send(_ message: WebSocketMessage) async throws(HTTPError) {
    let (connection, generation) = state.withLock { ($0.current.connection, $0.generation) }
    do throws(HTTPError) {
      try await connection.send(message)
    } catch {
      throw explained(error, generation: generation)
    }
  }

  /// `error` from connection `generation`, or ``HTTPError/timedOut`` when keep-alive gave up
  /// on that connection (which it ended by cancelling it).
  func explained(_ error: HTTPError, generation: Int) -> HTTPError {
    state.withLock { $0.timedOut.contains(generation) } ? .timedOut : error
  }

  /// Sends a text message.
  public func send(_ text: String) async throws(HTTPError) {
    try await send(.text(text))
  }

  /// Sends a binary message.
  public func send(_ data: Data) async throws(HTTPError) {
    try await send(.binary(data))
  }

  /// Sends `value` encoded as JSON in a text message; a value that cannot be encoded
  /// fails with ``HTTPError/invalidRequest(reason:)`` and nothing is sent.
  public func send<Value: Encodable>(json value: Value, encoder: JSONEncoder = JSONEncoder())
    async throws(HTTPError)
  {
    let data: Data
    do {
      data = try encoder.encode(value)
    } catch {
      throw .invalidRequest(reason: "the message could not be encoded as JSON: \(error)")
    }
    try await send(.text(String(decoding: data, as: UTF8.self)))
  }

  /// Sends a ping and returns when the server's pong arrives.
  public func ping() async throws(HTTPError) {
    let (connection, generation) = state.withLock { ($0.current.connection, $0.generation) }
    do throws(HTTPError) {
      try await connection.ping()
    } catch {
      throw explained(error, generation: generation)
    }
  }

  // MARK: - Closing

  /// Closes the connection: sends a close frame with `code` and `reason` and waits for the
  /// server's, at most ``Settings/closeTimeout``, then drops it. Never reconnects after. A
  /// code no endpoint may send (``WebSocketCloseCode/isSendable`` is false: 1005, 1006,
  /// 1015, or one outside the registered codes and 3000–4999) goes out as 1000.
  public func close(_ code: WebSocketCloseCode = .normalClosure, reason: String = "") async {
    let (connection, keepAlive) = state.withLock { state in
      state.closedByCaller = true
      return (state.current.connection, state.keepAlive.take())
    }
    keepAlive?.stop()
    // 1005, 1006 and 1015 only report; they never go in a close frame.
    let code = code.isSendable ? code : .normalClosure
    // Past the timeout the connection is dropped, which ends the close. An entry in a timer
    // shared by every connection (a test clock's own), not a sleeping task per close: on
    // Linux a cancelled sleep holds its memory until it would have ended.
    let giveUp = timer.schedule(
      DroppedAtTimeout(connection), at: clock.now.advanced(by: settings.closeTimeout))
    await connection.close(code, reason: reason)
    timer.cancel(giveUp)
    // Ends a connection already over, or one whose close was given up.
    connection.cancel()
  }

  // MARK: - Receiving

  /// The messages as they arrive.
  public var messages: Messages { Messages(socket: self) }

  /// The messages decoded from JSON (text or binary) as `Value`; one that does not decode
  /// fails with ``HTTPError/decodingFailed(reason:response:)``, whose response carries the
  /// message's bytes as its body.
  public func messages<Value: Decodable & Sendable>(
    as type: Value.Type, decoder: JSONDecoder = JSONDecoder()
  ) -> DecodedMessages<Value> {
    DecodedMessages(messages: messages, decoder: decoder, response: response)
  }
}

/// A connection whose close has not ended by its timeout: dropped then.
private final class DroppedAtTimeout: DeadlineTimed {
  let connection: any TransportWebSocketConnection

  init(_ connection: any TransportWebSocketConnection) { self.connection = connection }

  func timerFired(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
    connection.cancel()
    return nil
  }
}
