import Foundation

/// Keep-alive: a ping every ``WebSocket/Settings/pingInterval``; a connection whose pong does
/// not come within the next interval is ended, and its reader hears ``HTTPError/timedOut``.
///
/// Each connection's keep-alive is an entry in a ``DeadlineTimer`` (``WebSocket/timer``), not a
/// task: nothing waits between pings, and nothing waits for a pong but the connection's own
/// reading. On Linux a cancelled sleep holds its task and timer until it would have ended, so a
/// sleeping task per connection outlived the connection by up to an interval.
extension WebSocket {
  /// Starts the keep-alive of the current connection, in place of the one before's (a
  /// reconnection's new connection is pinged, the old one no longer); none once closed.
  func startKeepAlive() {
    guard let interval = settings.pingInterval else { return }
    let (started, stopped) = state.withLock { state -> (KeepAlive?, KeepAlive?) in
      let previous = state.keepAlive.take()
      guard !state.closedByCaller else { return (nil, previous) }
      let keepAlive = KeepAlive(
        self, generation: state.generation, interval: interval, timer: timer)
      state.keepAlive = keepAlive
      return (keepAlive, previous)
    }
    stopped?.stop()
    started?.start()
  }

  /// Stops the keep-alive (only if it is connection `generation`'s, when given: one that has
  /// ended): its entry leaves the timer at once.
  func stopKeepAlive(of generation: Int? = nil) {
    let stopped = state.withLock { state -> KeepAlive? in
      guard generation == nil || state.keepAlive?.generation == generation else { return nil }
      return state.keepAlive.take()
    }
    stopped?.stop()
  }

  /// Connection `generation`, while it is the current one and the caller has not closed it.
  fileprivate func connection(of generation: Int) -> (any TransportWebSocketConnection)? {
    state.withLock { state in
      state.generation == generation && !state.closedByCaller ? state.current.connection : nil
    }
  }
}

/// One connection's keep-alive, in a ``DeadlineTimer``: woken every interval, it sends a ping
/// when the last one was answered, and ends the connection when it was not. It holds its
/// ``WebSocket`` weakly: the timer keeps neither the socket nor its connection.
final class KeepAlive: DeadlineTimed {
  private struct State: Sendable {
    weak var socket: WebSocket?
    /// The timer's token, once scheduled.
    var token: UInt64?
    /// A ping is out and its pong has not come.
    var awaitsPong = false
    var isOver = false
  }

  /// The connection kept alive (``WebSocket/reconnections`` at its opening).
  let generation: Int
  private let interval: Duration
  private let timer: DeadlineTimer
  private let state: Locked<State>

  init(_ socket: WebSocket, generation: Int, interval: Duration, timer: DeadlineTimer) {
    state = Locked(State(socket: socket))
    self.generation = generation
    self.interval = interval
    self.timer = timer
  }

  /// Schedules the first ping an interval from now (unless stopped first).
  func start() {
    let token = timer.schedule(self, at: timer.clock.now.advanced(by: interval))
    let stopped = state.withLock { state -> Bool in
      guard !state.isOver else { return true }
      state.token = token
      return false
    }
    if stopped { timer.cancel(token) }
  }

  /// No more pings: the entry leaves the timer.
  func stop() {
    let token = state.withLock { state -> UInt64? in
      state.isOver = true
      state.socket = nil
      return state.token.take()
    }
    if let token { timer.cancel(token) }
  }

  func timerFired(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
    guard let connection = connectionToPing() else { return over() }
    connection.ping { [weak self] result in self?.answered(result) }
    return now.advanced(by: interval)
  }

  /// The connection to ping now, if the last ping was answered; else, when it was not, the
  /// connection is ended (its reader hears ``HTTPError/timedOut``) and `nil` returned, as
  /// when it is no longer the socket's, or the socket is gone. The socket is not held past
  /// this look, so that one let go meanwhile goes at once.
  private func connectionToPing() -> (any TransportWebSocketConnection)? {
    let due = state.withLock { state -> (socket: WebSocket, missed: Bool)? in
      guard !state.isOver, let socket = state.socket else { return nil }
      defer { state.awaitsPong = true }
      return (socket, state.awaitsPong)
    }
    guard let due, let connection = due.socket.connection(of: generation) else { return nil }
    guard due.missed else { return connection }
    due.socket.state.withLock { _ = $0.timedOut.insert(generation) }
    connection.cancel()
    return nil
  }

  /// The ping's pong came; or the connection has ended, and with it the keep-alive.
  private func answered(_ result: Result<Void, HTTPError>) {
    switch result {
    case .success: state.withLock { $0.awaitsPong = false }
    case .failure: stop()
    }
  }

  /// Ends the keep-alive from the timer's wake: the timer forgets the entry.
  private func over() -> ContinuousClock.Instant? {
    state.withLock { state in
      state.isOver = true
      state.socket = nil
      state.token = nil
    }
    return nil
  }
}
