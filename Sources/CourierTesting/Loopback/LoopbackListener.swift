import Courier
import Foundation

/// The shared part of a `LoopbackServer`: the listening socket (accepted on by the
/// process's ``LoopbackAcceptor``), the open connections, the handler and the counters.
///
/// The acceptor and connections hold this, never the `LoopbackServer`, so dropping the server
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

  /// Starts accepting connections (on the process's one accepting thread). On failure the
  /// socket is closed.
  func start() throws(LoopbackError) {
    do {
      try LoopbackAcceptor.shared.get().add(socket, for: self)
    } catch {
      LoopbackSocket.release(socket)
      throw error
    }
  }

  /// Stops accepting and closes every connection. Safe to call more than once.
  func stop() {
    let connections = state.withLock { state -> [LoopbackConnection]? in
      guard !state.isStopped else { return nil }
      state.isStopped = true
      return Array(state.connections.values)
    }
    // Once only: by now the descriptor may be another server's.
    guard let connections else { return }
    // Shuts the socket down (on Linux this frees the port at once), unless the acceptor
    // has let it go already; the acceptor closes it.
    if case .success(let acceptor) = LoopbackAcceptor.shared { acceptor.remove(socket, of: self) }
    for connection in connections { connection.stop() }
  }

  /// Takes a connection accepted on this listener's socket, and starts its thread.
  func accepted(_ fd: Int32) {
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
