import Foundation

extension ChannelWebSocket.Engine {
  /// Starts reading, with `first`, the bytes that came after the handshake's answer.
  func start(after first: [UInt8]) {
    Task { await self.readFrames(Data(first)) }
  }

  /// The reading task: reads the channel while there is room for what arrives, and does what
  /// each frame means, until the peer's close frame, a failure, or the end.
  private func readFrames(_ first: Data) async {
    var frames = WebSocketFrameReader(
      maximumPayload: options.maximumMessageSize, readsMaskedFrames: false)
    var messages = WebSocketMessageReader(maximumMessage: options.maximumMessageSize)
    var arrived = first
    while true {
      if !arrived.isEmpty {
        frames.append(arrived)
        // Nothing after the server's close frame is read: the connection is over.
        guard deliver(&frames, &messages) else { return }
      }
      guard await roomToRead() else { return }
      let read: Data?
      do throws(HTTPError) {
        read = try await channel.read()
      } catch {
        fail(error, flushing: false)
        return
      }
      guard let read else { return endedByPeer() }
      arrived = read
    }
  }

  /// Waits while the messages waiting for a caller fill the read-ahead; returns whether to
  /// read on.
  private func roomToRead() async -> Bool {
    while true {
      let (decision, watchers) = state.withLock {
        state -> (Bool?, [CheckedContinuation<Void, Never>]) in
        if Self.reads(state, readAhead: options.readAhead) { return (true, []) }
        guard !Self.isOver(state) else { return (false, []) }
        defer { state.pauseWatchers = [] }
        return (nil, state.pauseWatchers)
      }
      for watcher in watchers { watcher.resume() }
      if let decision { return decision }
      let goesOn = await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
        let waits = state.withLock { state -> Bool in
          guard !Self.reads(state, readAhead: options.readAhead), !Self.isOver(state) else {
            return false
          }
          state.roomWaiter = waiter
          return true
        }
        if !waits { waiter.resume(returning: true) }  // room came meanwhile: look again
      }
      guard goesOn else { return false }
    }
  }

  /// Whether nothing more is to be read, room or not.
  private static func isOver(_ state: State) -> Bool {
    state.isFinished || state.stopsNow || state.peerClosure != nil || state.endsAfterFlush
  }

  /// Reads the frames that have arrived and does what each means; returns whether to read
  /// on (not after the peer's close frame, nor after a failure).
  private func deliver(
    _ frames: inout WebSocketFrameReader, _ messages: inout WebSocketMessageReader
  ) -> Bool {
    do throws(WebSocketFailure) {
      while let frame = try frames.next() {
        guard let output = try messages.read(frame) else { continue }
        apply(output)
        if case .close = output { return false }
      }
      try messages.checkArriving(frames)
      return true
    } catch {
      let httpError: HTTPError =
        error.code == .messageTooBig
        ? .responseTooLarge(limit: options.maximumMessageSize)
        : .transport(
          .badServerResponse, reason: "WebSocket: \(error.reason) (closed with \(error.code))")
      fail(httpError, flushing: true, closingWith: error)
      return false
    }
  }

  private func apply(_ output: WebSocketMessageReader.Output) {
    var resume: (@Sendable () -> Void)?
    var bounds = false
    state.withLock { state in
      switch output {
      case .message(let message):
        guard !state.sentClose else { return }
        if let receiver = state.receiver {
          state.receiver = nil
          resume = { receiver.resume(returning: .success(message)) }
        } else {
          state.inbox.append(message)
          state.inboxBytes += message.byteCount
        }
      case .ping(let payload):
        guard !state.sentClose else { return }
        // Every ping is answered while what waits to be written is under the high-water
        // mark; past it (a peer that pings and does not read), only the latest.
        if state.queued - state.written < Self.queuedBytesLimit {
          Self.enqueue(WebSocketFrame(opcode: .pong, payload: payload), &state)
        } else {
          state.pong = payload
        }
      case .pong(let payload):
        guard let index = state.pingers.firstIndex(where: { $0.payload == payload }) else {
          return  // unsolicited (a heartbeat), or its ping gave up
        }
        let answer = state.pingers.remove(at: index).answer
        resume = { answer(.success(())) }
      case .close(let code, let reason):
        guard state.peerClosure == nil else { return }
        state.peerClosure = WebSocketClosure(code: code ?? .noStatusReceived, reason: reason)
        if !state.sentClose {
          Self.enqueue(.close(code, reason: ""), &state)
          state.sentClose = true
        }
        // The reader hears of the end once the answer is written (``finish()``): a
        // caller that lets the socket go when its loop ends must not cut the answer off.
        state.endsAfterFlush = true
        bounds = true
      }
    }
    if bounds { boundFlush() }
    resume?()
    settle()
  }

  /// The peer ended the stream: before its close frame (after it, nothing is read), so the
  /// connection ended abnormally.
  private func endedByPeer() {
    fail(
      .transport(
        .networkConnectionLost, reason: "the WebSocket connection ended without a close frame"),
      flushing: false)
  }

  /// Ends the connection with `error`: at once, or once the close frame queued is out. A
  /// protocol `failure` queues the close frame that says so, under the same lock, so that
  /// no caller sees the close without the error. The reader hears of it in ``finish()``,
  /// once the frame is out.
  func fail(_ error: HTTPError, flushing: Bool, closingWith failure: WebSocketFailure? = nil) {
    let ended = state.withLock { state -> Bool in
      // Over already: the channel's calls fail because it was closed.
      guard !state.isFinished else { return true }
      if let failure, !state.sentClose {
        Self.enqueue(.close(failure.code, reason: failure.reason), &state)
        state.sentClose = true
      }
      if state.failure == nil { state.failure = error }
      if flushing { state.endsAfterFlush = true } else { state.stopsNow = true }
      return false
    }
    guard !ended else { return }
    if flushing { boundFlush() }
    settle()
  }

  /// Carries out what the state now asks: the end (at once, or once nothing is left to
  /// write and no write is under way), or a writing task for bytes queued.
  func settle() {
    let (finishes, writes) = state.withLock { state -> (Bool, Bool) in
      guard !state.isFinished else { return (false, false) }
      let queued = !state.outgoing.isEmpty || state.pong != nil
      if state.stopsNow || (state.endsAfterFlush && !queued && !state.isWriting) {
        return (true, false)
      }
      guard queued, !state.isWriting else { return (false, false) }
      state.isWriting = true
      return (false, true)
    }
    if finishes { finish() }
    if writes { Task { await self.writeQueued() } }
  }

  /// The writing task: writes what callers queued, in order, until nothing is left.
  private func writeQueued() async {
    while true {
      let batch = state.withLock { state -> Data? in
        // The pong goes with the next batch; none after a close frame.
        if let pong = state.pong.take(), !state.sentClose {
          Self.enqueue(WebSocketFrame(opcode: .pong, payload: pong), &state)
        }
        guard !state.isFinished, !state.stopsNow, !state.outgoing.isEmpty else {
          state.isWriting = false
          return nil
        }
        defer { state.outgoing = Data() }
        return state.outgoing
      }
      guard let batch else { return settle() }
      do throws(HTTPError) {
        try await channel.write(batch)
      } catch {
        state.withLock { $0.isWriting = false }
        return fail(error, flushing: false)
      }
      written(batch.count)
    }
  }

  /// Tells the senders whose bytes are now written.
  private func written(_ count: Int) {
    let done = state.withLock { state in
      state.written += Int64(count)
      let written = state.written
      let done = state.senders.prefix { $0.mark <= written }
      state.senders.removeFirst(done.count)
      return done.map(\.waiter)
    }
    for sender in done { sender.resume(returning: .success(())) }
  }

  /// Closes the channel and answers everything still waiting.
  private func finish() {
    let answers = state.withLock { state -> (@Sendable () -> Void)? in
      guard !state.isFinished else { return nil }
      state.isFinished = true
      let outcome = Self.endOfMessages(state) ?? .success(nil)
      let refusal = Self.refusal(state) ?? .cancelled
      let receiver = state.receiver
      let senders = state.senders.map(\.waiter)
      let pingers = state.pingers.map(\.answer)
      let (closers, watchers, room) = (state.closers, state.pauseWatchers, state.roomWaiter)
      let flushTimer = state.flushTimer
      state.receiver = nil
      state.senders = []
      state.pingers = []
      state.closers = []
      state.pauseWatchers = []
      state.roomWaiter = nil
      state.flushTimer = nil
      state.outgoing = Data()
      return { [timer] in
        // The close timeout, if it runs, lets go of the connection now, rather than holding
        // it (and its memory) until it would have fired.
        if let flushTimer { timer.cancel(flushTimer) }
        room?.resume(returning: false)
        receiver?.resume(returning: outcome)
        for sender in senders { sender.resume(returning: .failure(refusal)) }
        for pinger in pingers { pinger(.failure(refusal)) }
        for closer in closers { closer.resume() }
        for watcher in watchers { watcher.resume() }
      }
    }
    guard let answers else { return }
    channel.close()
    answers()
  }
}
