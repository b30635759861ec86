/// One request's life inside a transport, as a value: which of its parties — the caller
/// waiting for the head, the body's reader, the transfer itself — is still owed what.
/// Every transport keeps one per request under a lock and feeds it the events its platform
/// reports; each event returns the ``Action`` to perform once the lock is released
/// (resuming the caller, ending the body, starting or stopping the transfer), so that
/// nothing is resumed, started or cancelled under a lock.
///
/// The caller is answered exactly once, by whichever comes first: the head (streamed), the
/// whole exchange (collected, or written to a file), a failure, its cancellation, or a
/// timeout. An error that ends the exchange early stops the transfer; events that arrive
/// after the end (a late completion, a head after a cancellation) are ignored. Events that
/// cannot happen — starting twice, a head or a completion before the start — trap.
///
/// Generic over what it hands back, so that its tests feed events and compare actions with
/// plain values: `Waiter` is the caller's continuation, `Transfer` what starts and stops
/// the network work (a URLSession task, a libcurl transfer), `Writer` the body's writer.
struct RequestMachine<Waiter, Transfer, Writer> {
  enum State {
    /// Not started yet.
    case idle
    /// Cancelled or timed out before it started: no transfer will run.
    case endedBeforeStart(HTTPError)
    /// The transfer runs; the caller waits for the head (or, collecting, the whole body).
    case waiting(Waiter, Transfer)
    /// The caller has the head; the body streams to its reader.
    case streaming(Transfer, Writer)
    /// Everyone has had their answer.
    case finished
  }

  /// What to do once the lock is released.
  enum Action {
    case none
    /// Start the transfer.
    case start(Transfer)
    /// The exchange ended before it started: answer the caller with the error, and discard
    /// the transfer unstarted.
    case refuse(Waiter, HTTPError, Transfer)
    /// Answer the caller; when the answer is a streamed head, the body goes on.
    case answer(Waiter, Result<TransportResponse, HTTPError>)
    /// Answer the caller with the error, and stop the transfer.
    case answerAndStop(Waiter, HTTPError, Transfer)
    /// End the body, with the error if any.
    case endBody(Writer, HTTPError?)
    /// End the body, with the error if any, and stop the transfer.
    case endBodyAndStop(Writer, HTTPError?, Transfer)
  }

  private(set) var state = State.idle

  /// Whether every party has had its answer.
  var isFinished: Bool {
    if case .finished = state { true } else { false }
  }

  /// The transfer, while it runs.
  var transfer: Transfer? {
    switch state {
    case .waiting(_, let transfer), .streaming(let transfer, _): transfer
    case .idle, .endedBeforeStart, .finished: nil
    }
  }

  /// The body's writer, while the body streams.
  var writer: Writer? {
    if case .streaming(_, let writer) = state { writer } else { nil }
  }

  /// The caller comes to start the exchange: when it has ended already (cancelled or timed
  /// out first), it is answered with that error at once and no transfer need be made;
  /// otherwise `nil`, and ``start(_:_:)`` follows.
  mutating func refusesStart(_ waiter: Waiter) -> Action? {
    switch state {
    case .idle:
      return nil
    case .endedBeforeStart(let error):
      state = .finished
      return .answer(waiter, .failure(error))
    case .waiting, .streaming, .finished:
      preconditionFailure("RequestMachine: a request was started twice")
    }
  }

  /// The caller waits for `transfer`'s answer: it starts, unless the exchange ended first.
  mutating func start(_ waiter: Waiter, _ transfer: Transfer) -> Action {
    switch state {
    case .idle:
      state = .waiting(waiter, transfer)
      return .start(transfer)
    case .endedBeforeStart(let error):
      state = .finished
      return .refuse(waiter, error, transfer)
    case .waiting, .streaming, .finished:
      preconditionFailure("RequestMachine: a request was started twice")
    }
  }

  /// The head arrived and the body will stream through `writer`: the caller gets
  /// `response`, unless it has had its answer.
  mutating func receivedHead(_ response: TransportResponse, writer: Writer) -> Action {
    switch state {
    case .waiting(let waiter, let transfer):
      state = .streaming(transfer, writer)
      return .answer(waiter, .success(response))
    case .streaming, .finished:
      // A second head (Apple's multipart/x-mixed-replace) is no new answer; after the end,
      // nobody waits for one.
      return .none
    case .idle, .endedBeforeStart:
      preconditionFailure("RequestMachine: a response head arrived before the request started")
    }
  }

  /// The transfer completed with `result`: a caller still waiting gets it; a streamed body
  /// ends, with the failure if any (a success's value is then the body's end).
  mutating func completed(_ result: Result<TransportResponse, HTTPError>) -> Action {
    switch state {
    case .waiting(let waiter, _):
      state = .finished
      return .answer(waiter, result)
    case .streaming(_, let writer):
      state = .finished
      if case .failure(let error) = result { return .endBody(writer, error) }
      return .endBody(writer, nil)
    case .finished:
      return .none  // a late completion, after a cancellation or a timeout
    case .idle, .endedBeforeStart:
      preconditionFailure("RequestMachine: a request completed before it started")
    }
  }

  /// The whole response has come while the transfer still runs (its request body is still
  /// being sent, and the transfer ends only once both directions have): the body ends for its
  /// reader, and the transfer is stopped, since nothing more is wanted of it — a body producer
  /// that never ends must not keep it, and its connection, alive.
  mutating func responseEndedFirst() -> Action {
    switch state {
    case .streaming(let transfer, let writer):
      state = .finished
      return .endBodyAndStop(writer, nil, transfer)
    case .finished:
      return .none  // after a cancellation, a timeout, or the reader's end
    case .idle, .endedBeforeStart, .waiting:
      preconditionFailure("RequestMachine: a response ended before its head was handed over")
    }
  }

  /// The exchange ends now with `error` (cancelled, timed out, too large, stopped by the
  /// reader), unless it has ended; a running transfer is stopped.
  mutating func ended(with error: HTTPError) -> Action {
    switch state {
    case .idle:
      state = .endedBeforeStart(error)
      return .none
    case .waiting(let waiter, let transfer):
      state = .finished
      return .answerAndStop(waiter, error, transfer)
    case .streaming(let transfer, let writer):
      state = .finished
      return .endBodyAndStop(writer, error, transfer)
    case .endedBeforeStart, .finished:
      return .none
    }
  }
}

extension RequestMachine: Sendable where Waiter: Sendable, Transfer: Sendable, Writer: Sendable {}
extension RequestMachine.State: Sendable
where Waiter: Sendable, Transfer: Sendable, Writer: Sendable {}
extension RequestMachine.Action: Sendable
where Waiter: Sendable, Transfer: Sendable, Writer: Sendable {}
