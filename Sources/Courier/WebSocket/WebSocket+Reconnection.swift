import Foundation

/// Receiving, and opening the connection again as ``ReconnectionPolicy`` says when it drops.
extension WebSocket {
  /// The next message, `nil` once the server has closed the connection; reconnects as the
  /// policy says.
  func receive() async throws(HTTPError) -> WebSocketMessage? {
    var failedInARow = 0
    while true {
      let (connection, generation) = state.withLock { ($0.current.connection, $0.generation) }
      let outcome: HTTPError
      do throws(HTTPError) {
        if let message = try await connection.receive() { return message }
        guard reconnection.reconnects, let closure = connection.peerClosure,
          Self.reconnectsAfter(closure.code)
        else {
          stopKeepAlive(of: generation)
          return nil
        }
        outcome = .transport(
          .networkConnectionLost, reason: "the server closed with \(closure.code)")
      } catch {
        outcome = explained(error, generation: generation)
      }
      // Only an ended connection is replaced: not one refused a second reader, not after
      // the caller's own cancellation or close.
      let ended =
        switch outcome {
        case .cancelled, .invalidRequest: false
        default: true
        }
      // Whatever else failed the reader (its own cancellation too) ended the connection: its
      // keep-alive stops (a reconnection starts another).
      if case .invalidRequest = outcome {} else { stopKeepAlive(of: generation) }
      guard ended, reconnection.reconnects, !state.withLock({ $0.closedByCaller })
      else { throw outcome }
      try await reconnect(after: generation, failedInARow: &failedInARow, last: outcome)
    }
  }

  /// Close codes after which a server expects clients to come back.
  static func reconnectsAfter(_ code: WebSocketCloseCode) -> Bool {
    [.goingAway, .abnormalClosure, .internalServerError, .serviceRestart, .tryAgainLater]
      .contains(code)
  }

  /// Opens the connection again after the policy's delay, unless a caller already did
  /// since `generation`; throws the last error once the policy's attempts are spent.
  func reconnect(after generation: Int, failedInARow: inout Int, last: HTTPError)
    async throws(HTTPError)
  {
    var last = last
    while true {
      if state.withLock({ $0.generation != generation }) { return }
      if let limit = reconnection.maximumConsecutiveFailures, failedInARow >= limit { throw last }
      do {
        try await clock.wait(for: reconnection.delay)
      } catch {
        throw .cancelled
      }
      if state.withLock({ $0.closedByCaller }) { throw last }
      failedInARow += 1
      do throws(HTTPError) {
        let opened = try await connect()
        let replaced = state.withLock { state -> (any TransportWebSocketConnection)? in
          guard state.generation == generation, !state.closedByCaller else { return nil }
          defer {
            state.current = opened
            state.generation += 1
          }
          return state.current.connection
        }
        // The connection replaced is over; the one not needed is closed at once.
        if replaced != nil { startKeepAlive() }
        (replaced ?? opened.connection).cancel()
        return
      } catch {
        if error == .cancelled { throw error }
        last = error
      }
    }
  }
}
