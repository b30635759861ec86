// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation
  import FoundationNetworking

  /// A connection over a connect-only libcurl handle: libcurl connects (through any proxy,
  /// with TLS), then the channel's bytes move on the transport's driver
  /// (``CurlByteChannel/Link``).
  ///
  /// Callers meet it here, under one lock: a read waits as `reader` (the socket is read only
  /// while one does), bytes to write wait in `outgoing` with their writer, and the driver
  /// resumes each once its part is done.
  final class CurlByteChannel: TransportByteChannel, DeadlineTimed {
    typealias Waiter<Value> = CheckedContinuation<Result<Value, HTTPError>, Never>

    struct State: Sendable {
      var outgoing: [UInt8] = []
      var writer: Waiter<Void>?
      var reader: Waiter<Data?>?
      /// The peer has ended the stream: every read from now on is `nil`.
      var peerEnded = false
      /// Why the channel ended (closed, failed).
      var failure: HTTPError?
      /// The driver is to let go at once.
      var stopsNow = false
      /// Still connecting (the deadline applies).
      var isConnecting = true
      /// The driver has let go of the connection.
      var isFinished = false
      /// The channel waits for its socket (the driver watches it), or is about to: what
      /// changes its work must ask the driver for a turn.
      var isPolling = false
      /// While polling, the driver watches the (plain) socket for reading: a read that starts
      /// then needs no turn, as the driver wakes when bytes come.
      var watchesReading = false
    }

    let state = Locked(State())
    let driver: CurlDriver
    /// The driver's side, under the driver's lock (set once, in `init`).
    nonisolated(unsafe) private(set) var link: Link!

    init(driver: CurlDriver) {
      self.driver = driver
      link = Link(channel: self)
    }

    /// Connects to `url` on `driver`; returns once libcurl has connected (through the proxy
    /// tunnel, and TLS for `https`).
    static func connect(
      to url: URL, options: TransportOptions, settings: CurlTransport.Settings,
      driver: CurlDriver, timer: DeadlineTimer
    ) async throws(HTTPError) -> CurlByteChannel {
      let channel = CurlByteChannel(driver: driver)
      // Whichever comes first answers the caller: the driver, the deadline, or a cancellation
      // (which does not wait for libcurl to notice, in a name lookup or a TLS handshake).
      let outcome = FirstOutcome<Result<CurlByteChannel, HTTPError>>()
      let deadline = options.deadline.map { timer.schedule(channel, at: $0) }
      let result = await withTaskCancellationHandler {
        channel.link.prepare(url: url, settings: settings) { connected in
          // A connection made after its caller left is closed at once.
          if !outcome.finish(connected.map { channel }), case .success = connected {
            channel.close()
          }
        }
        driver.connect(channel)
        return await outcome.value()
      } onCancel: {
        channel.end(with: .cancelled)
        outcome.finish(.failure(.cancelled))
      }
      if let deadline { timer.cancel(deadline) }
      return try result.get()
    }

    /// The deadline: a channel still connecting ends with ``HTTPError/timedOut``.
    func timerFired(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
      let connecting = state.withLock { $0.isConnecting }
      if connecting { end(with: .timedOut) }
      return nil
    }

    // MARK: - TransportByteChannel

    func read() async throws(HTTPError) -> Data? {
      let result = await withCheckedContinuation { (waiter: Waiter<Data?>) in
        let (ready, wakes) = state.withLock { state -> (Result<Data?, HTTPError>?, Bool) in
          if let failure = state.failure { return (.failure(failure), false) }
          if state.peerEnded || state.isFinished { return (.success(nil), false) }
          guard state.reader == nil else {
            return (.failure(.invalidRequest(reason: "another task is reading already")), false)
          }
          state.reader = waiter
          if state.isPolling && state.watchesReading { return (nil, false) }
          return (nil, Self.wakes(&state))
        }
        if let ready { waiter.resume(returning: ready) }
        if wakes { driver.turn(self) }
      }
      return try result.get()
    }

    func write(_ bytes: Data) async throws(HTTPError) {
      guard !bytes.isEmpty else { return }
      let result = await withCheckedContinuation { (waiter: Waiter<Void>) in
        let (refused, wakes) = state.withLock { state -> (HTTPError?, Bool) in
          if let failure = state.failure { return (failure, false) }
          if state.isFinished { return (Self.lostConnection, false) }
          guard state.writer == nil else {
            return (.invalidRequest(reason: "another task is writing already"), false)
          }
          state.outgoing = [UInt8](bytes)
          state.writer = waiter
          return (nil, Self.wakes(&state))
        }
        if let refused { waiter.resume(returning: .failure(refused)) }
        if wakes { driver.turn(self) }
      }
      try result.get()
    }

    /// Lets go of the connection on this thread when the driver's lock is free, so that its
    /// descriptor is closed by the time this returns (usually; else the lock's holder lets
    /// go of it before it lets go of the lock).
    func close() {
      end(with: .cancelled, here: true)
    }

    /// Ends the channel with `error` unless it has ended: what waits is answered now, and
    /// the driver lets go of the connection (`here`, or on its own thread).
    func end(with error: HTTPError, here: Bool = false) {
      let waiting = state.withLock { state -> (Waiter<Data?>?, Waiter<Void>?)? in
        guard !state.isFinished, state.failure == nil else { return nil }
        state.failure = error
        state.stopsNow = true
        return (state.reader.take(), state.writer.take())
      }
      guard let waiting else { return }
      waiting.0?.resume(returning: .failure(error))
      waiting.1?.resume(returning: .failure(error))
      // By default not on this thread, which may be a cancellation handler's or the timer's.
      driver.turn(self, here: here)
    }

    /// Whether the driver must be asked for a turn for work just added: the channel waits
    /// for its socket (or is about to) and has not been asked since.
    static func wakes(_ state: inout State) -> Bool {
      defer { state.isPolling = false }
      return state.isPolling
    }

    static let lostConnection = HTTPError.transport(
      .networkConnectionLost, reason: "the connection was closed")
  }
#endif
