import Foundation

/// Keep-alive: a ping every ``WebSocket/Settings/pingInterval``; a connection whose pong does
/// not come within the next interval is ended, and its reader hears ``HTTPError/timedOut``.
extension WebSocket {
  func startKeepAlive() {
    guard let interval = settings.pingInterval else { return }
    let clock = clock
    let task = Task { [weak self] in
      while !Task.isCancelled {
        guard (try? await clock.wait(for: interval)) != nil, let socket = self else { return }
        await socket.pingOrDrop(within: interval)
      }
    }
    state.withLock { $0.keepAlive = task }
  }

  /// Pings the current connection; drops it when no pong comes within `interval`.
  func pingOrDrop(within interval: Duration) async {
    let (connection, generation) = state.withLock { ($0.current.connection, $0.generation) }
    let clock = clock
    await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        // A ping that fails found the connection ended: its reader hears why.
        try? await connection.ping()
        return true
      }
      group.addTask {
        do {
          try await clock.wait(for: interval)
          return false
        } catch {
          return true
        }
      }
      if await group.next() == false {
        state.withLock { _ = $0.timedOut.insert(generation) }
        connection.cancel()  // which ends the ping too
      }
      group.cancelAll()
    }
  }
}
