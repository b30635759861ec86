import Courier
import Foundation

/// The one thread that accepts connections for every `LoopbackServer` of the process: it
/// sleeps in `poll(2)` on all their listening sockets (which do not block) and a wake-up
/// pipe, and hands each connection to its server's listener, which starts the connection's
/// own thread.
///
/// A thread per server, waking every 100 ms to see whether its server had stopped, made a
/// test run hold hundreds of threads at once (every test's server is alive while the test
/// runs, and a run starts them all together) and wake thousands of times a second.
///
/// A listening socket is closed only by this thread, once it no longer polls it, so that its
/// descriptor cannot be reused while it is polled or shut down.
final class LoopbackAcceptor: Sendable {
  private struct State: Sendable {
    var listeners: [Int32: LoopbackListener] = [:]
    /// Sockets no longer accepted on, to close before the next wait.
    var retired: [Int32] = []
  }

  /// The process's acceptor, its thread started the first time a server listens.
  static let shared = Result { () throws(LoopbackError) in try LoopbackAcceptor() }

  private let state = Locked(State())
  private let wakeReader: Int32
  private let wakeWriter: Int32

  private init() throws(LoopbackError) {
    (wakeReader, wakeWriter) = try LoopbackSocket.makeWakePipe()
    let thread = Thread { [self] in acceptForever() }
    thread.name = "LoopbackServer accept"
    thread.start()
  }

  /// Accepts connections on `socket` (listening, not blocking) for `listener` from now on.
  func add(_ socket: Int32, for listener: LoopbackListener) {
    state.withLock { $0.listeners[socket] = listener }
    LoopbackSocket.wake(wakeWriter)
  }

  /// Stops accepting on `socket` for `listener` and shuts it down, which frees its port at
  /// once on Linux; it is closed before the thread next waits. Nothing happens if it was
  /// removed already: the descriptor may be another server's by now.
  func remove(_ socket: Int32, of listener: LoopbackListener) {
    let removed = state.withLock { state in
      guard state.listeners[socket] === listener else { return false }
      state.listeners[socket] = nil
      LoopbackSocket.shutDown(socket, wholly: true)
      state.retired.append(socket)
      return true
    }
    if removed { LoopbackSocket.wake(wakeWriter) }
  }

  private func acceptForever() {
    while true {
      let (sockets, retired) = state.withLock { state in
        defer { state.retired = [] }
        return (Array(state.listeners.keys), state.retired)
      }
      for socket in retired { LoopbackSocket.release(socket) }
      for socket in LoopbackSocket.waitReadable([wakeReader] + sockets) {
        if socket == wakeReader {
          LoopbackSocket.drain(wakeReader)
        } else if let listener = state.withLock({ $0.listeners[socket] }) {
          acceptWaiting(on: socket, for: listener)
        }
      }
    }
  }

  /// Accepts every connection waiting on `socket`; a socket that fails accepts no more.
  private func acceptWaiting(on socket: Int32, for listener: LoopbackListener) {
    while true {
      switch LoopbackSocket.acceptConnection(socket) {
      case .connection(let fd): listener.accepted(fd)
      case .noneWaiting: return
      case .failed:
        remove(socket, of: listener)
        return
      }
    }
  }
}
