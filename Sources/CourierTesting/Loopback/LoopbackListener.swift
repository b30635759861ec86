import Courier
import Foundation

/// The shared part of a `LoopbackServer`: the listening socket and its accepting thread,
/// the open connections, the handler and the counters.
///
/// Threads and connections hold this, never the `LoopbackServer`, so dropping the server
/// runs its `deinit`, which stops everything.
final class LoopbackListener: Sendable {
  /// What the server has counted so far.
  struct Counters: Sendable {
    var requests = 0
    var connections = 0
    var activeRequests = 0
    var maximumActiveRequests = 0
  }

  private struct State: Sendable {
    var isStopped = false
    var connections: [ObjectIdentifier: LoopbackConnection] = [:]
    var counters = Counters()
  }

  let handler: LoopbackServer.Handler
  /// Whether handlers get a request at its head and read its body as it arrives.
  let streamsBodies: Bool
  private let socket: Int32
  private let state = Locked(State())

  init(socket: Int32, streamsBodies: Bool = false, handler: @escaping LoopbackServer.Handler) {
    self.socket = socket
    self.streamsBodies = streamsBodies
    self.handler = handler
  }

  var counters: Counters {
    state.withLock { $0.counters }
  }

  /// Starts the accepting thread.
  func start() {
    let thread = Thread { [self] in acceptUntilStopped() }
    thread.name = "LoopbackServer accept"
    thread.start()
  }

  /// Stops accepting and closes every connection. Safe to call more than once.
  func stop() {
    let connections = state.withLock { state in
      guard !state.isStopped else { return [LoopbackConnection]() }
      state.isStopped = true
      // On Linux this frees the port at once and wakes the accepting thread, which closes
      // the descriptor; Darwin may not wake, so that thread also polls `isStopped`.
      LoopbackSocket.shutDown(socket, wholly: true)
      return Array(state.connections.values)
    }
    for connection in connections { connection.stop() }
  }

  private func acceptUntilStopped() {
    while !state.withLock({ $0.isStopped }) {
      guard LoopbackSocket.waitReadable(socket, milliseconds: 100) else { continue }
      guard let fd = LoopbackSocket.acceptConnection(socket) else { break }
      let connection = LoopbackConnection(socket: fd, listener: self)
      let accepted = state.withLock { state in
        guard !state.isStopped else { return false }
        state.connections[ObjectIdentifier(connection)] = connection
        state.counters.connections += 1
        return true
      }
      if accepted {
        connection.start()
      } else {
        LoopbackSocket.release(fd)
      }
    }
    LoopbackSocket.release(socket)
  }

  // MARK: - Used by connections

  /// Counts a request that has been read and is about to be handed to the handler.
  func requestStarted() {
    state.withLock { state in
      state.counters.requests += 1
      state.counters.activeRequests += 1
      state.counters.maximumActiveRequests = max(
        state.counters.maximumActiveRequests, state.counters.activeRequests)
    }
  }

  /// Counts a request whose response has ended.
  func requestEnded() {
    state.withLock { $0.counters.activeRequests -= 1 }
  }

  /// Forgets a connection whose socket has been closed.
  func connectionClosed(_ connection: LoopbackConnection) {
    _ = state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(connection)) }
  }
}
