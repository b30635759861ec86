import Foundation

extension ChannelWebSocket {
  /// The connection's state and its two pumps: a reading task, which reads the channel while
  /// there is room and does what each frame means, and a writing task, started when bytes
  /// are queued and ended when none are left. Callers meet it here, under one lock: messages
  /// received wait in `inbox` (at most ``TransportWebSocketOptions/readAhead`` bytes, after
  /// which the channel is not read), bytes to send wait in `outgoing`, and each waiting call
  /// holds a continuation a pump resumes, outside the lock.
  ///
  /// The pumps hold the engine (not the ``ChannelWebSocket`` callers hold) until the
  /// connection has ended: a close frame still going out when its caller lets go is written.
  final class Engine: DeadlineTimed {
    typealias Waiter<Value> = CheckedContinuation<Result<Value, HTTPError>, Never>
    /// What hears a ping's pong, or why none will come.
    typealias Pinger = @Sendable (Result<Void, HTTPError>) -> Void

    struct State: Sendable {
      var outgoing = Data()
      /// The payload of the latest ping not yet answered, once what waits to be written is
      /// past the high-water mark: such pings are answered once, with the latest (RFC 6455
      /// §5.5.3), so that a peer that pings and does not read cannot grow it without bound.
      var pong: [UInt8]?
      /// Bytes queued and bytes written since the start, to tell a sender when its are out.
      var queued: Int64 = 0
      var written: Int64 = 0
      var senders: [(mark: Int64, waiter: Waiter<Void>)] = []
      var inbox: [WebSocketMessage] = []
      var inboxBytes = 0
      var receiver: Waiter<WebSocketMessage?>?
      /// Pings waiting for their pong, by the payload each carries.
      var pingers: [(payload: [UInt8], answer: Pinger)] = []
      var pingsSent: UInt64 = 0
      var closers: [CheckedContinuation<Void, Never>] = []
      /// A close frame has been queued; nothing but the peer's close is awaited after it.
      var sentClose = false
      var peerClosure: WebSocketClosure?
      /// Why the connection ended or is ending, when not by a clean close handshake.
      var failure: HTTPError?
      /// The connection is to end at once (cancelled, failed), without flushing.
      var stopsNow = false
      /// The connection is to end once what is queued has been written (a close frame).
      var endsAfterFlush = false
      /// The channel is closed and every waiting call answered.
      var isFinished = false
      /// The writing task runs.
      var isWriting = false
      /// The reading task, waiting for room: resumed with whether to read on.
      var roomWaiter: CheckedContinuation<Bool, Never>?
      /// The close timeout's token, while a closing flush is timed.
      var flushTimer: UInt64?
      /// Masking keys drawn from the system's randomness in bulk, used from the end.
      var masks: [UInt32] = []
      /// Waiting for the reading task to stop for want of room (tests).
      var pauseWatchers: [CheckedContinuation<Void, Never>] = []
    }

    let state = Locked(State())
    let channel: any TransportByteChannel
    let options: TransportWebSocketOptions
    let timer: DeadlineTimer

    init(
      channel: any TransportByteChannel, options: TransportWebSocketOptions, timer: DeadlineTimer
    ) {
      self.channel = channel
      self.options = options
      self.timer = timer
    }

    /// Bounds the writing of a close frame after which the connection ends (the answer to
    /// the peer's close, or a failure's): a peer that stops reading is let go after
    /// ``TransportWebSocketOptions/closeTimeout``, with what is still queued.
    func boundFlush() {
      let id = timer.schedule(self, at: timer.clock.now + options.closeTimeout)
      let late = state.withLock { state -> Bool in
        guard !state.isFinished, state.flushTimer == nil else { return true }
        state.flushTimer = id
        return false
      }
      if late { timer.cancel(id) }
    }

    func timerFired(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
      let stops = state.withLock { state -> Bool in
        guard state.endsAfterFlush, !state.isFinished else { return false }
        state.stopsNow = true
        return true
      }
      if stops { settle() }
      return nil
    }

    // MARK: - Callers

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
      let payload = nextPingPayload()
      let result = await withTaskCancellationHandler {
        await withCheckedContinuation { (waiter: Waiter<Void>) in
          ping(payload, checksCancellation: true) { waiter.resume(returning: $0) }
        }
      } onCancel: {
        let answer = state.withLock { state -> Pinger? in
          guard let index = state.pingers.firstIndex(where: { $0.payload == payload }) else {
            return nil
          }
          return state.pingers.remove(at: index).answer
        }
        answer?(.failure(.cancelled))
      }
      try result.get()
    }

    /// Sends a ping without waiting: `answered` hears its pong, or why none will come (the
    /// connection has ended), once.
    func ping(answered: @escaping Pinger) {
      ping(nextPingPayload(), checksCancellation: false, answered: answered)
    }

    private func nextPingPayload() -> [UInt8] {
      state.withLock { state in
        state.pingsSent += 1
        return Array("courier \(state.pingsSent)".utf8)
      }
    }

    /// Queues a ping carrying `payload`, whose pong `answered` hears (refused at once when
    /// the connection is over, or when `checksCancellation` and the task is cancelled).
    private func ping(_ payload: [UInt8], checksCancellation: Bool, answered: @escaping Pinger) {
      let (refused, room) = state.withLock { state -> (HTTPError?, Bool) in
        if let refusal = Self.refusal(state) { return (refusal, false) }
        if checksCancellation, Task.isCancelled { return (.cancelled, false) }
        state.pingers.append((payload, answered))
        Self.enqueue(WebSocketFrame(opcode: .ping, payload: payload), &state)
        // Twice the read-ahead while a ping waits: its pong may be behind a full one.
        return (nil, Self.takeRoomWaiter(&state, readAhead: options.readAhead))
      }
      if let refused { return answered(.failure(refused)) }
      if room { resumeReading() }
      settle()
    }

    func receive() async throws(HTTPError) -> WebSocketMessage? {
      let result = await withTaskCancellationHandler {
        await withCheckedContinuation { (waiter: Waiter<WebSocketMessage?>) in
          var room = false
          let ready = state.withLock { state -> Result<WebSocketMessage?, HTTPError>? in
            if !state.inbox.isEmpty {
              let message = state.inbox.removeFirst()
              state.inboxBytes -= message.byteCount
              // Room again: the reading task reads on.
              room = Self.takeRoomWaiter(&state, readAhead: options.readAhead)
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
          if room { resumeReading() }
        }
      } onCancel: {
        // This reader is answered at once, even while a close frame still goes out.
        let waiter = state.withLock { $0.receiver.take() }
        waiter?.resume(returning: .failure(.cancelled))
        cancel()
      }
      return try result.get()
    }

    func close(_ code: WebSocketCloseCode, reason: String) async {
      await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
        let (finished, room) = state.withLock { state -> (Bool, Bool) in
          guard !state.isFinished else { return (true, false) }
          if !state.sentClose {
            Self.enqueue(.close(code.isSendable ? code : .normalClosure, reason: reason), &state)
            state.sentClose = true
            state.inbox.removeAll()
            state.inboxBytes = 0
          }
          state.closers.append(waiter)
          return (false, Self.takeRoomWaiter(&state, readAhead: options.readAhead))
        }
        if finished { waiter.resume() }
        if room { resumeReading() }
        settle()
      }
    }

    /// Ends the connection with ``HTTPError/cancelled`` (unless it has ended already): the
    /// channel is closed and what waits fails. A close frame on its way out, after which the
    /// connection ends anyway, is let out first (within the close timeout): a caller that
    /// lets go of its socket once the peer has closed still answers the close.
    func cancel() {
      let ends = state.withLock { state -> Bool in
        guard !state.isFinished, state.failure == nil, !state.endsAfterFlush else { return false }
        state.failure = .cancelled
        state.stopsNow = true
        return true
      }
      if ends { settle() }
    }

    /// Returns once the reading task has stopped reading because
    /// ``TransportWebSocketOptions/readAhead`` bytes of messages wait for a caller (or the
    /// connection has ended): what tests of back-pressure await.
    func readingPaused() async {
      await withCheckedContinuation { continuation in
        let now = state.withLock { state in
          if state.isFinished || state.roomWaiter != nil { return true }
          state.pauseWatchers.append(continuation)
          return false
        }
        if now { continuation.resume() }
      }
    }

    /// Queues `frame`, masked (a client masks every frame), and waits until it is written.
    /// A sender cancelled while its frame waits ends the connection: a frame cannot be taken
    /// back once part of it may be on the wire.
    private func queue(_ frame: WebSocketFrame) async throws(HTTPError) {
      let result = await withTaskCancellationHandler {
        await withCheckedContinuation { (waiter: Waiter<Void>) in
          let outcome = state.withLock { state -> Result<Void, HTTPError>? in
            if let refusal = Self.refusal(state) { return .failure(refusal) }
            let mark = Self.enqueue(frame, &state)
            // Within the high-water mark the message is on its way; past it, the sender
            // waits for the network, which holds a fast producer back.
            if mark - state.written <= Self.queuedBytesLimit { return .success(()) }
            state.senders.append((mark, waiter))
            return nil
          }
          if let outcome { waiter.resume(returning: outcome) }
          settle()
        }
      } onCancel: {
        cancel()
      }
      try result.get()
    }

    /// The reading task waits for room and `state` now has it: takes the waiter (resume it
    /// with ``resumeReading()``, outside the lock).
    private static func takeRoomWaiter(_ state: inout State, readAhead: Int) -> Bool {
      state.roomWaiter != nil && (isFull(state, readAhead: readAhead) == false)
    }

    /// Resumes the reading task, waiting for room, if it still waits.
    private func resumeReading() {
      let waiter = state.withLock { $0.roomWaiter.take() }
      waiter?.resume(returning: true)
    }
  }
}

extension WebSocketMessage {
  /// What the message holds while it waits for a caller, for read-ahead accounting: its
  /// bytes and its place in the queue, so that empty messages (two bytes each on the wire)
  /// fill the read-ahead too, rather than queueing without bound.
  var byteCount: Int {
    let payload =
      switch self {
      case .text(let text): text.utf8.count
      case .binary(let data): data.count
      }
    return payload + MemoryLayout<WebSocketMessage>.stride
  }
}
