import Courier
import Foundation

extension StubWebSocket {
  /// The client's side: what `WebSocket` reads and writes through.
  final class Client: TransportWebSocketConnection {
    let peer: StubWebSocket

    init(peer: StubWebSocket) {
      self.peer = peer
    }

    var peerClosure: WebSocketClosure? { peer.state.withLock { $0.serverClose } }

    func send(_ message: WebSocketMessage) async throws(HTTPError) {
      typealias ServerWaiter = CheckedContinuation<WebSocketMessage?, Never>
      let taken = peer.state.withLock { state -> Result<ServerWaiter?, HTTPError> in
        if let failure = state.failure { return .failure(failure) }
        guard state.clientClose == nil, state.serverClose == nil else {
          return .failure(.transport(URLError(.networkConnectionLost)))
        }
        guard let waiter = state.serverWaiter else {
          state.toServer.append(message)
          return .success(nil)
        }
        state.serverWaiter = nil
        return .success(waiter)
      }
      let waiter = try taken.get()
      waiter?.resume(returning: message)
    }

    func receive() async throws(HTTPError) -> WebSocketMessage? {
      let peer = peer
      let result = await withTaskCancellationHandler {
        await withCheckedContinuation { (waiter: Waiter<WebSocketMessage?>) in
          let ready = peer.state.withLock { state -> Result<WebSocketMessage?, HTTPError>? in
            if !state.toClient.isEmpty { return .success(state.toClient.removeFirst()) }
            if let failure = state.failure { return .failure(failure) }
            if state.serverClose != nil || state.clientClose != nil { return .success(nil) }
            guard state.clientWaiter == nil else {
              return .failure(.invalidRequest(reason: "another task is receiving already"))
            }
            state.clientWaiter = waiter
            return nil
          }
          if let ready { waiter.resume(returning: ready) }
        }
      } onCancel: {
        peer.end(serverClose: nil, failure: .cancelled)
      }
      return try result.get()
    }

    func ping() async throws(HTTPError) {
      let peer = peer
      let result = await withCheckedContinuation { (waiter: Waiter<Void>) in
        let ready = peer.state.withLock { state -> Result<Void, HTTPError>? in
          if let failure = state.failure { return .failure(failure) }
          if state.answersPings { return .success(()) }
          state.pingers.append(waiter)
          return nil
        }
        if let ready { waiter.resume(returning: ready) }
      }
      try result.get()
    }

    func close(_ code: WebSocketCloseCode, reason: String) async {
      let peer = peer
      await withCheckedContinuation { continuation in
        let done = peer.state.withLock { state -> Bool in
          if state.clientClose == nil {
            state.clientClose = WebSocketClosure(code: code, reason: reason)
            state.toClient.removeAll()
          }
          if state.serverClose != nil || state.failure != nil { return true }
          state.closeWaiters.append(continuation)
          defer { state.serverWaiter = nil }
          state.serverWaiter?.resume(returning: nil)
          return false
        }
        if done { continuation.resume() }
      }
    }

    func cancel() {
      peer.end(serverClose: nil, failure: .cancelled)
    }
  }
}
