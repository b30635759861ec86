// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation
  import FoundationNetworking

  extension CurlWebSocket.Link {
    /// A turn of the exchange: writes what callers queued, reads while there is room for
    /// what arrives, until neither can go on; then has the driver watch the socket for what
    /// would let it go on, or, after many rounds, comes back after the driver's other work.
    func exchange() {
      do throws(HTTPError) {
        for _ in 0..<16 {
          let (stop, wantsToRead, watchers) = socket.state.withLock {
            state -> (Bool, Bool, [CheckedContinuation<Void, Never>]) in
            if batch.isEmpty, !state.outgoing.isEmpty {
              swap(&batch, &state.outgoing)
              offset = 0
            }
            let stop = state.stopsNow || (state.endsAfterFlush && batch.isEmpty)
            let full = CurlWebSocket.isFull(state, readAhead: socket.options.readAhead)
            let reads = state.peerClosure == nil && !state.endsAfterFlush && !full
            guard full else { return (stop, reads, []) }
            defer { state.pauseWatchers = [] }
            return (stop, reads, state.pauseWatchers)
          }
          if !watchers.isEmpty { driver.later { for watcher in watchers { watcher.resume() } } }
          if stop { return finish() }
          var moved = false
          var blockedWriting = false
          if !batch.isEmpty {
            let sent = try send(batch, from: offset)
            offset += sent
            moved = sent > 0
            blockedWriting = sent == 0
            if offset == batch.count {
              written(batch.count)
              batch = []
            }
          }
          if wantsToRead, let count = try receive() {
            guard count > 0 else {
              endedByPeer()
              return finish()
            }
            frames.append(driver.buffer[..<count])
            try deliverFrames()
            moved = true
          }
          if !moved, sleeps(reading: wantsToRead, batch: batch) {
            return watch(reading: wantsToRead, writing: blockedWriting)
          }
        }
        driver.runAgain(socket)
      } catch {
        fail(error, flushing: false)
        finish()
      }
    }

    /// Whether to wait for the socket: nothing came since the turn looked (no bytes to send,
    /// no change in whether to read, no end); if so, callers that add work from now on ask
    /// the driver for a turn.
    private func sleeps(reading: Bool, batch: [UInt8]) -> Bool {
      socket.state.withLock { state in
        let reads =
          state.peerClosure == nil && !state.endsAfterFlush
          && !CurlWebSocket.isFull(state, readAhead: socket.options.readAhead)
        let bytesWaiting = batch.isEmpty && !state.outgoing.isEmpty
        let ending = state.stopsNow || (state.endsAfterFlush && batch.isEmpty)
        guard !bytesWaiting, !ending, reads == reading else { return false }
        state.isPolling = true
        return true
      }
    }

    /// Tells the senders whose bytes are now written.
    private func written(_ count: Int) {
      let done = socket.state.withLock { state in
        state.written += Int64(count)
        let written = state.written
        let done = state.senders.prefix { $0.mark <= written }
        state.senders.removeFirst(done.count)
        return done.map(\.waiter)
      }
      guard !done.isEmpty else { return }
      driver.later { for sender in done { sender.resume(returning: .success(())) } }
    }

    /// Reads the frames that have arrived and does what each means.
    func deliverFrames() throws(HTTPError) {
      do throws(WebSocketFailure) {
        // Nothing after the server's close frame is read: the connection is over.
        while !closedByPeer, let frame = try frames.next() {
          guard let output = try messages.read(frame) else { continue }
          apply(output)
          if case .close = output { closedByPeer = true }
        }
        if !closedByPeer { try messages.checkArriving(frames) }
      } catch {
        let httpError: HTTPError =
          error.code == .messageTooBig
          ? .responseTooLarge(limit: socket.options.maximumMessageSize)
          : .transport(
            .badServerResponse, reason: "WebSocket: \(error.reason) (closed with \(error.code))")
        fail(httpError, flushing: true, closingWith: error)
      }
    }

    private func apply(_ output: WebSocketMessageReader.Output) {
      var resume: (@Sendable () -> Void)?
      var bounds = false
      socket.state.withLock { state in
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
          CurlWebSocket.enqueue(WebSocketFrame(opcode: .pong, payload: payload), &state)
        case .pong(let payload):
          guard let index = state.pingers.firstIndex(where: { $0.payload == payload }) else {
            return  // unsolicited (a heartbeat), or its ping gave up
          }
          let waiter = state.pingers.remove(at: index).waiter
          resume = { waiter.resume(returning: .success(())) }
        case .close(let code, let reason):
          guard state.peerClosure == nil else { return }
          state.peerClosure = WebSocketClosure(code: code ?? .noStatusReceived, reason: reason)
          if !state.sentClose {
            CurlWebSocket.enqueue(.close(code, reason: ""), &state)
            state.sentClose = true
          }
          // The reader hears of the end once the answer is written (``finish()``): a
          // caller that lets the socket go when its loop ends must not cut the answer off.
          state.endsAfterFlush = true
          bounds = true
        }
      }
      if bounds { socket.boundFlush() }
      if let resume { driver.later(resume) }
    }

    /// The peer ended the stream: cleanly after its close frame, abnormally before.
    private func endedByPeer() {
      let clean = socket.state.withLock { $0.peerClosure != nil }
      if !clean {
        fail(
          .transport(
            .networkConnectionLost, reason: "the WebSocket connection ended without a close frame"),
          flushing: false)
      }
    }

    /// Ends the connection with `error`: at once, or once the close frame queued is out. A
    /// protocol `failure` queues the close frame that says so, under the same lock, so that
    /// no caller sees the close without the error. The reader hears of it in ``finish()``,
    /// once the frame is out.
    private func fail(
      _ error: HTTPError, flushing: Bool, closingWith failure: WebSocketFailure? = nil
    ) {
      socket.state.withLock { state in
        if let failure, !state.sentClose {
          CurlWebSocket.enqueue(.close(failure.code, reason: failure.reason), &state)
          state.sentClose = true
        }
        if state.failure == nil { state.failure = error }
        if flushing { state.endsAfterFlush = true } else { state.stopsNow = true }
      }
      if flushing { socket.boundFlush() }
    }

    /// Lets go of the connection and answers everything still waiting.
    func finish() {
      release()
      socket.ended()
      let answers = socket.state.withLock { state -> @Sendable () -> Void in
        state.isFinished = true
        let outcome = CurlWebSocket.endOfMessages(state) ?? .success(nil)
        let refusal = CurlWebSocket.refusal(state) ?? .cancelled
        let receiver = state.receiver
        let senders = state.senders.map(\.waiter)
        let pingers = state.pingers.map(\.waiter)
        let (closers, watchers) = (state.closers, state.pauseWatchers)
        state.receiver = nil
        state.senders = []
        state.pingers = []
        state.closers = []
        state.pauseWatchers = []
        return {
          receiver?.resume(returning: outcome)
          for sender in senders { sender.resume(returning: .failure(refusal)) }
          for pinger in pingers { pinger.resume(returning: .failure(refusal)) }
          for closer in closers { closer.resume() }
          for watcher in watchers { watcher.resume() }
        }
      }
      driver.later(answers)
    }
  }
#endif
