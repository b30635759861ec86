// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation
  import FoundationNetworking

  /// A WebSocket connection over a connect-only libcurl handle: libcurl connects (through
  /// any proxy, with TLS), and Courier runs the handshake and RFC 6455's framing itself on
  /// the connection (libcurl before 7.86 has no WebSocket support of its own).
  ///
  /// The transport's driver moves every connection's bytes on its one thread, or on whichever
  /// thread holds its lock (``CurlWebSocket/Link``): no thread and no descriptor but the
  /// socket per connection. Callers meet it here, under one lock: messages received wait in
  /// `inbox` (at most ``TransportWebSocketOptions/readAhead`` bytes, after which the socket is
  /// not read), bytes to send wait in `outgoing`, and each waiting call holds a continuation
  /// the driver resumes.
  final class CurlWebSocket: TransportWebSocketConnection, DeadlineTimed {
    typealias Waiter<Value> = CheckedContinuation<Result<Value, HTTPError>, Never>

    struct State: Sendable {
      var outgoing: [UInt8] = []
      /// Bytes queued and bytes written since the start, to tell a sender when its are out.
      var queued: Int64 = 0
      var written: Int64 = 0
      var senders: [(mark: Int64, waiter: Waiter<Void>)] = []
      var inbox: [WebSocketMessage] = []
      var inboxBytes = 0
      var receiver: Waiter<WebSocketMessage?>?
      /// Pings waiting for their pong, by the payload each carries.
      var pingers: [(payload: [UInt8], waiter: Waiter<Void>)] = []
      var pingsSent: UInt64 = 0
      var closers: [CheckedContinuation<Void, Never>] = []
      /// A close frame has been queued; nothing but the peer's close is awaited after it.
      var sentClose = false
      var peerClosure: WebSocketClosure?
      /// Why the connection ended or is ending, when not by a clean close handshake.
      var failure: HTTPError?
      /// The driver is to let go at once (cancelled, timed out), without flushing.
      var stopsNow = false
      /// The driver is to let go once what is queued has been written (a close frame).
      var endsAfterFlush = false
      /// The handshake is still under way (the deadline applies).
      var isOpening = true
      /// The driver has let go of the connection.
      var isFinished = false
      /// The connection waits for its socket (the driver watches it), or is about to: what
      /// changes its work must ask the driver for a turn.
      var isPolling = false
      /// Masking keys drawn from the system's randomness in bulk, used from the end.
      var masks: [UInt32] = []
      /// Waiting for the driver to stop reading for want of room (tests).
      var pauseWatchers: [CheckedContinuation<Void, Never>] = []
    }

    let state = Locked(State())
    let options: TransportWebSocketOptions
    let driver: CurlDriver
    /// The driver's side, under the driver's lock (set once, in `init`).
    nonisolated(unsafe) private(set) var link: Link!
    private let timer: DeadlineTimer
    private let deadlineID = Locked<UInt64?>(nil)

    init(options: TransportWebSocketOptions, timer: DeadlineTimer, driver: CurlDriver) {
      self.options = options
      self.timer = timer
      self.driver = driver
      link = Link(socket: self)
    }

    /// Times the handshake against the request's deadline.
    func scheduleDeadline() {
      guard let deadline = options.transport.deadline else { return }
      let id = timer.schedule(self, at: deadline)
      deadlineID.withLock { $0 = id }
    }

    func handshakeEnded() {
      state.withLock { $0.isOpening = false }
      if let id = deadlineID.withLock({ $0 }) { timer.cancel(id) }
    }

    /// Bounds the writing of a close frame after which the connection ends (the answer to
    /// the peer's close, or a failure's): a peer that stops reading is let go after
    /// ``TransportWebSocketOptions/closeTimeout``, with what is still queued.
    func boundFlush() {
      let id = timer.schedule(self, at: .now + options.closeTimeout)
      deadlineID.withLock { $0 = id }
    }

    /// The connection has ended: the close timeout, if it runs, lets go of it now, rather
    /// than holding the connection (and its memory) until it would have fired.
    func ended() {
      if let id = deadlineID.withLock({ $0 }) { timer.cancel(id) }
    }

    func timerFired(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
      let flushing = state.withLock { state -> Bool in
        guard !state.isOpening, state.endsAfterFlush, !state.isFinished else { return false }
        state.stopsNow = true
        return true
      }
      if flushing {
        driver.turn(self, here: false)
      } else {
        end(with: .timedOut, onlyWhileOpening: true)
      }
      return nil
    }

    // MARK: - TransportWebSocketConnection

    var peerClosure: WebSocketClosure? {
      state.withLock { $0.peerClosure }
    }

    func send(_ message: WebSocketMessage) async throws(HTTPError) {
      let frame: WebSocketFrame =
        switch message {
        case .text(let text): WebSocketFrame(opcode: .text, payload: Array(text.utf8))
        case .binary(let data): WebSocketFrame(opcode: .binary, payload: Array(data))
        }
      try await queue(frame)
    }

    /// Each ping carries a payload of its own, so that only its pong (not an unsolicited
    /// one, not another ping's) answers it. A cancelled ping stops waiting; the connection
    /// goes on.
    func ping() async throws(HTTPError) {
      let payload = state.withLock { state -> [UInt8] in
        state.pingsSent += 1
        return Array("courier \(state.pingsSent)".utf8)
      }
      let result = await withTaskCancellationHandler {
        await withCheckedContinuation { (waiter: Waiter<Void>) in
          let (refused, wakes) = state.withLock { state -> (HTTPError?, Bool) in
            if let refusal = Self.refusal(state) { return (refusal, false) }
            if Task.isCancelled { return (.cancelled, false) }
            state.pingers.append((payload, waiter))
            Self.enqueue(WebSocketFrame(opcode: .ping, payload: payload), &state)
            return (nil, Self.wakes(&state))
          }
          if let refused { waiter.resume(returning: .failure(refused)) }
          if wakes { driver.turn(self) }
        }
      } onCancel: {
        let waiter = state.withLock { state -> Waiter<Void>? in
          guard let index = state.pingers.firstIndex(where: { $0.payload == payload }) else {
            return nil
          }
          return state.pingers.remove(at: index).waiter
        }
        waiter?.resume(returning: .failure(.cancelled))
      }
      try result.get()
    }

    func receive() async throws(HTTPError) -> WebSocketMessage? {
      let result = await withTaskCancellationHandler {
        await withCheckedContinuation { (waiter: Waiter<WebSocketMessage?>) in
          var wakes = false
          let ready = state.withLock { state -> Result<WebSocketMessage?, HTTPError>? in
            if !state.inbox.isEmpty {
              let full = Self.isFull(state, readAhead: options.readAhead)
              let message = state.inbox.removeFirst()
              state.inboxBytes -= message.byteCount
              // Room again: the driver reads on.
              wakes =
                full && !Self.isFull(state, readAhead: options.readAhead) && Self.wakes(&state)
              return .success(message)
            }
            if let outcome = Self.endOfMessages(state) { return outcome }
            guard state.receiver == nil else {
              return .failure(.invalidRequest(reason: "another task is receiving already"))
            }
            state.receiver = waiter
            return nil
          }
          if let ready { waiter.resume(returning: ready) }
          if wakes { driver.turn(self) }
        }
      } onCancel: {
        // This reader is answered at once, even while a close frame still goes out.
        let waiter = state.withLock { state in
          defer { state.receiver = nil }
          return state.receiver
        }
        waiter?.resume(returning: .failure(.cancelled))
        cancel()
      }
      return try result.get()
    }

    func close(_ code: WebSocketCloseCode, reason: String) async {
      await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
        let (finished, wakes) = state.withLock { state -> (Bool, Bool) in
          guard !state.isFinished else { return (true, false) }
          if !state.sentClose {
            Self.enqueue(.close(code.isSendable ? code : .normalClosure, reason: reason), &state)
            state.sentClose = true
            state.inbox.removeAll()
            state.inboxBytes = 0
          }
          state.closers.append(waiter)
          return (false, Self.wakes(&state))
        }
        if finished { waiter.resume() }
        if wakes { driver.turn(self) }
      }
    }

    func cancel() {
      end(with: .cancelled, onlyWhileOpening: false)
    }

    /// Ends the connection with `error` (unless it has ended already); the driver lets go
    /// of the connection and fails what waits. A close frame on its way out, after
    /// which the connection ends anyway, is let out first (within the close timeout): a
    /// caller that lets go of its socket once the peer has closed still answers the close.
    private func end(with error: HTTPError, onlyWhileOpening: Bool) {
      let ended = state.withLock { state -> Bool in
        guard !state.isFinished, state.failure == nil, !state.endsAfterFlush,
          !onlyWhileOpening || state.isOpening
        else { return false }
        state.failure = error
        state.stopsNow = true
        return true
      }
      // Not on this thread, which may be a cancellation handler's.
      if ended { driver.turn(self, here: false) }
    }

    /// Returns once the connection has stopped reading the socket because ``TransportWebSocketOptions/readAhead``
    /// bytes of messages wait for a caller (or it has ended): what tests of back-pressure
    /// await.
    func readingPaused() async {
      await withCheckedContinuation { continuation in
        let now = state.withLock { state in
          if state.isFinished { return true }
          state.pauseWatchers.append(continuation)
          return false
        }
        if now { continuation.resume() }
        driver.turn(self, here: false)
      }
    }

    // MARK: - Rules shared with the driver

    /// Queues `frame`, masked (a client masks every frame), and waits until it is written.
    /// A sender cancelled while its frame waits ends the connection: a frame cannot be taken
    /// back once part of it may be on the wire.
    private func queue(_ frame: WebSocketFrame) async throws(HTTPError) {
      let result = await withTaskCancellationHandler {
        await withCheckedContinuation { (waiter: Waiter<Void>) in
          let (outcome, wakes) = state.withLock { state -> (Result<Void, HTTPError>?, Bool) in
            if let refusal = Self.refusal(state) { return (.failure(refusal), false) }
            let mark = Self.enqueue(frame, &state)
            let wakes = Self.wakes(&state)
            // Within the high-water mark the message is on its way; past it, the sender
            // waits for the network, which holds a fast producer back.
            if mark - state.written <= Self.queuedBytesLimit { return (.success(()), wakes) }
            state.senders.append((mark, waiter))
            return (nil, wakes)
          }
          if let outcome { waiter.resume(returning: outcome) }
          if wakes { driver.turn(self) }
        }
      } onCancel: {
        cancel()
      }
      try result.get()
    }
  }

  extension WebSocketMessage {
    /// The bytes the message holds, for read-ahead accounting.
    var byteCount: Int {
      switch self {
      case .text(let text): text.utf8.count
      case .binary(let data): data.count
      }
    }
  }
#endif
