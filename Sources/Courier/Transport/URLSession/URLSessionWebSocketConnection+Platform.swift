// Apple platforms only: FoundationNetworking's WebSocket tasks need a libcurl that has
// WebSocket support (see URLSessionWebSocket+Platform.swift).
#if !canImport(FoundationNetworking)
  import Foundation

  /// A ``TransportWebSocketConnection`` over a `URLSessionWebSocketTask`: each call is the task's
  /// completion-handler method in a checked continuation; the task's delegate reports the
  /// open and the peer's close, and answers TLS challenges by the transport's rules.
  final class URLSessionWebSocketConnection: TransportWebSocketConnection {
    let task: URLSessionWebSocketTask
    let events: Events

    /// A connection over `task`, whose TLS challenges `rules` answers.
    init(task: URLSessionWebSocketTask, rules: SessionDelegate) {
      self.task = task
      events = Events(rules: rules)
    }

    /// Resumes the task and waits for the handshake's end. The server's choice is checked as
    /// on every transport (``WebSocketHandshake/chosenSubprotocol(in:offered:)``): a
    /// subprotocol not `offered`, or any extension, fails the opening and cancels the task.
    func open(offering offered: [String]) async throws(HTTPError) -> TransportWebSocket {
      let result = await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
          events.whenOpen(continuation)
          task.resume()
        }
      } onCancel: {
        task.cancel()
      }
      let subprotocol = try result.get()
      guard let http = task.response as? HTTPURLResponse else {
        task.cancel()
        throw .transport(URLError(.badServerResponse))
      }
      let response = HTTPResponse(head: http)
      do throws(HTTPError) {
        var headers = response.headers
        if let subprotocol, headers["Sec-WebSocket-Protocol"] == nil {
          headers["Sec-WebSocket-Protocol"] = subprotocol
        }
        _ = try WebSocketHandshake.chosenSubprotocol(in: headers, offered: offered)
      } catch {
        task.cancel()
        throw error
      }
      return TransportWebSocket(response: response, subprotocol: subprotocol, connection: self)
    }

    var peerClosure: WebSocketClosure? {
      events.closure
    }

    func send(_ message: WebSocketMessage) async throws(HTTPError) {
      let sent: URLSessionWebSocketTask.Message =
        switch message {
        case .text(let text): .string(text)
        case .binary(let data): .data(data)
        }
      // A message half sent cannot be taken back: cancelling the sender ends the connection.
      let error = await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
          task.send(sent) {
            continuation.resume(returning: $0.map { HTTPError(transportFailure: $0) })
          }
        }
      } onCancel: {
        task.cancel()
      }
      if let error { throw Task.isCancelled ? .cancelled : error }
    }

    func receive() async throws(HTTPError) -> WebSocketMessage? {
      // The task's message becomes Courier's (Sendable) inside its handler.
      let result = await withTaskCancellationHandler {
        await withCheckedContinuation {
          (continuation: CheckedContinuation<Result<WebSocketMessage, HTTPError>, Never>) in
          task.receive { outcome in
            switch outcome {
            case .success(.string(let text)): continuation.resume(returning: .success(.text(text)))
            case .success(.data(let data)): continuation.resume(returning: .success(.binary(data)))
            case .success: continuation.resume(returning: .success(.binary(Data())))
            case .failure(let error):
              continuation.resume(returning: .failure(HTTPError(transportFailure: error)))
            }
          }
        }
      } onCancel: {
        task.cancel()
      }
      switch result {
      case .success(let message): return message
      case .failure(let error):
        if let failure = URLSessionWebSocketEnding.receiveFailure(
          error, closeCode: task.closeCode.rawValue, peerClosed: events.closure != nil,
          maximumMessageSize: task.maximumMessageSize, cancelled: Task.isCancelled)
        {
          throw failure
        }
        // The peer closed, though `didCloseWith` may not have run yet: its code and reason
        // are the task's (unless Courier closed first, when they are Courier's own).
        events.notePeerClosure(
          URLSessionWebSocketEnding.closure(code: task.closeCode.rawValue, reason: task.closeReason)
        )
        answerPeerClose()
        return nil
      }
    }

    /// Sends a ping whose outcome (the pong, a failure, the task's end, or a cancellation)
    /// `answer` hears once: the events own it, as the pong handler has been seen called twice
    /// when a connection drops, and never after a cancellation. Returns the ping's id, `nil`
    /// when the connection had ended (`answer` has heard so).
    @discardableResult
    private func sendPing(_ answer: @escaping @Sendable (HTTPError?) -> Void) -> UInt64? {
      guard let ping = events.addPing(answer) else {
        answer(.transport(.networkConnectionLost, reason: "the connection has ended"))
        return nil
      }
      let events = events
      task.sendPing { error in
        events.takePing(ping)?(error.map { HTTPError(transportFailure: $0) })
      }
      return ping
    }

    /// The keep-alive's ping: the task's pong handler answers it, no task waits. It must not
    /// look at `Task.isCancelled`: the shared timer may fire it from a task it has cancelled.
    func ping(answered: @escaping @Sendable (Result<Void, HTTPError>) -> Void) {
      sendPing { error in answered(error.map { .failure($0) } ?? .success(())) }
    }

    func ping() async throws(HTTPError) {
      let events = events
      let id = Locked<UInt64?>(nil)
      let error = await withTaskCancellationHandler {
        await withCheckedContinuation { (waiter: CheckedContinuation<HTTPError?, Never>) in
          guard !Task.isCancelled else { return waiter.resume(returning: .cancelled) }
          let ping = sendPing { waiter.resume(returning: $0) }
          id.withLock { $0 = ping }
          // Cancelled meanwhile, before the handler below could find the ping.
          if Task.isCancelled, let ping { events.takePing(ping)?(.cancelled) }
        }
      } onCancel: {
        if let ping = id.withLock({ $0 }) { events.takePing(ping)?(.cancelled) }
      }
      if let error { throw error }
    }

    func close(_ code: WebSocketCloseCode, reason: String) async {
      events.noteSentClose()
      let sent = URLSessionWebSocketTask.CloseCode(rawValue: Int(code.rawValue)) ?? .normalClosure
      await withCheckedContinuation { continuation in
        events.whenClosed(continuation)
        task.cancel(with: sent, reason: Data(reason.utf8))
      }
    }

    /// Once the peer has closed, answers with its code (a caller letting go of the socket
    /// after its loop must not leave the close unanswered, and `cancel()` alone would send a
    /// close frame without a code); otherwise ends the task at once.
    func cancel() {
      if peerClosure != nil { answerPeerClose() } else { task.cancel() }
    }

    /// Sends the answer to the peer's close frame (a task that has ended ignores it).
    private func answerPeerClose() {
      guard let code = URLSessionWebSocketEnding.answer(to: peerClosure) else { return }
      task.cancel(
        with: URLSessionWebSocketTask.CloseCode(rawValue: code) ?? .normalClosure, reason: nil)
    }
  }

  extension URLSessionWebSocketConnection {
    /// The task's delegate: the open, the peer's close, the task's end, and its TLS challenges.
    // `@unchecked Sendable`: `state` is a `Locked`, which guards all its mutable state, and
    // `rules` is immutable and Sendable.
    final class Events: NSObject, URLSessionWebSocketDelegate, @unchecked Sendable {
      private struct State: Sendable {
        var opened: CheckedContinuation<Result<String?, HTTPError>, Never>?
        var closers: [CheckedContinuation<Void, Never>] = []
        var closure: WebSocketClosure?
        /// Courier sent a close frame first: the task's close code is then its own.
        var sentClose = false
        var ended = false
        var pings: [UInt64: @Sendable (HTTPError?) -> Void] = [:]
        var nextPing: UInt64 = 0
      }
      private let state = Locked(State())
      /// The transport's rules for TLS challenges, which also keep a refused task's error.
      private let rules: SessionDelegate

      init(rules: SessionDelegate) {
        self.rules = rules
      }

      var closure: WebSocketClosure? { state.withLock { $0.closure } }

      /// Courier is closing the connection itself.
      func noteSentClose() {
        state.withLock { $0.sentClose = true }
      }

      /// The peer's closure as the task keeps it, for a `receive` that ended before
      /// `didCloseWith` ran; ignored once Courier has sent a close of its own.
      func notePeerClosure(_ closure: WebSocketClosure?) {
        state.withLock { state in
          if state.closure == nil, !state.sentClose { state.closure = closure }
        }
      }

      func whenOpen(_ continuation: CheckedContinuation<Result<String?, HTTPError>, Never>) {
        state.withLock { $0.opened = continuation }
      }

      /// Keeps a ping's answer; `nil` once the task has ended.
      func addPing(_ answer: @escaping @Sendable (HTTPError?) -> Void) -> UInt64? {
        state.withLock { state in
          if state.ended { return nil }
          state.nextPing += 1
          state.pings[state.nextPing] = answer
          return state.nextPing
        }
      }

      /// Takes a ping's answer, if nothing has given it yet.
      func takePing(_ id: UInt64) -> (@Sendable (HTTPError?) -> Void)? {
        state.withLock { $0.pings.removeValue(forKey: id) }
      }

      func whenClosed(_ continuation: CheckedContinuation<Void, Never>) {
        let ended = state.withLock { state in
          if !state.ended { state.closers.append(continuation) }
          return state.ended
        }
        if ended { continuation.resume() }
      }

      func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
        didOpenWithProtocol protocol: String?
      ) {
        state.withLock { $0.opened.take() }?.resume(returning: .success(`protocol`))
      }

      func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
        didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
      ) {
        let closure = URLSessionWebSocketEnding.serverClosure(
          code: closeCode.rawValue, reason: reason)
        state.withLock { $0.closure = closure }
      }

      /// The transport's answer, as for its requests: without this the challenge would go to
      /// the session's delegate, which on a session the transport borrows is not Courier's.
      func urlSession(
        _ session: URLSession, task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler:
          @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
      ) {
        rules.urlSession(
          session, task: task, didReceive: challenge, completionHandler: completionHandler)
      }

      func urlSession(
        _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
      ) {
        let rejection = rules.takeRejection(for: task)
        let (opened, closers, pings) = state.withLock { state in
          state.ended = true
          defer {
            state.opened = nil
            state.closers = []
            state.pings = [:]
          }
          return (state.opened, state.closers, Array(state.pings.values))
        }
        let failure = URLSessionWebSocketEnding.endFailure(error, rejection: rejection)
        let ended =
          failure
          ?? .transport(.networkConnectionLost, reason: "the connection ended before the pong")
        for ping in pings { ping(ended) }
        if let opened {
          let refusal: HTTPError
          if let http = task.response as? HTTPURLResponse, http.statusCode != 101 {
            refusal = .unacceptableStatus(HTTPResponse(head: http))
          } else {
            refusal = failure ?? .transport(URLError(.badServerResponse))
          }
          opened.resume(returning: .failure(refusal))
        }
        for closer in closers { closer.resume() }
      }
    }
  }
#endif
