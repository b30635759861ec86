/// What a transport starts and stops for one exchange: a URLSession task, a libcurl
/// transfer. A ``TransportCall`` calls it outside its lock.
package protocol ExchangeTransfer: Sendable {
  /// Starts the network work.
  func begin()
  /// Stops work that has started, closing its connection; never blocks.
  func stop()
  /// Discards work that never started.
  func discard()
  /// Bytes moved either way so far, for a transfer whose bytes the transport does not see
  /// one chunk at a time (the idle timeout then compares counts); `nil` when it sees them.
  var bytesMoved: Int64? { get }
  /// The exchange has ended, however: called once, before the last answer.
  func exchangeEnded()
  /// When a byte last moved, for a transfer that records it itself, without the call's lock,
  /// instead of calling ``TransportCall/touch()`` for each byte (the timer reads it when it
  /// looks); `nil` when it touches the call.
  var lastActivity: ContinuousClock.Instant? { get }
}

extension ExchangeTransfer {
  /// The transport sees every byte.
  package var bytesMoved: Int64? { nil }
  /// The transport touches the call.
  package var lastActivity: ContinuousClock.Instant? { nil }
  /// Nothing to let go.
  package func exchangeEnded() {}
}

/// One exchange as every transport runs it: the ``RequestMachine`` and the exchange's
/// ``TransportDeadlines`` under one lock, fed by the transport's callbacks, the caller's cancellation,
/// the body's reader and the ``DeadlineTimer`` (or the transport's own loop, which keeps the
/// deadlines of libcurl's transfers); the actions they return are performed after
/// the lock is released.
package final class TransportCall<Transfer: ExchangeTransfer>: DeadlineTimed {
  package typealias Continuation = CheckedContinuation<Result<TransportResponse, HTTPError>, Never>
  private typealias Machine = RequestMachine<Continuation, Transfer, TransportResponseBody.Writer>

  private struct Core: Sendable {
    var machine = Machine()
    var deadlines: TransportDeadlines
    var timerToken: UInt64?
    /// The transfer once started, until the exchange has ended.
    var transfer: Transfer?
    /// The transfer's byte count when last looked at (see ``ExchangeTransfer/bytesMoved``).
    var bytesSeen: Int64 = 0
  }

  private let core: Locked<Core>
  /// The exchange's deadline and idle timeout as they were made (for scheduling the start).
  private let rules: TransportDeadlines
  /// The timer that wakes the call, or `nil` when its transport's own loop does
  /// (``init(options:clock:resumer:)``).
  private let timer: DeadlineTimer?
  private let clock: any TransportClock
  /// Whether the exchange has an idle timeout, so that moving bytes must be recorded.
  package let watchesActivity: Bool
  /// Resumes the caller: at once, or once a lock of the transport's is let go.
  private let resumer: Resumer?

  /// Runs what resumes the caller where it may run client code (see
  /// ``init(options:timer:resumer:)``).
  package typealias Resumer = @Sendable (@escaping @Sendable () -> Void) -> Void

  /// A call within `options`' deadline and idle timeout, timed by `timer`. A transport whose
  /// callbacks run under a lock of its own passes `resumer`, which runs what it is given
  /// once that lock is let go: resuming the caller may run client code at once (a task that
  /// prefers an inline executor), and none may run under a transport's lock.
  package convenience init(
    options: TransportOptions, timer: DeadlineTimer, resumer: Resumer? = nil
  ) {
    self.init(options: options, clock: timer.clock, timer: timer, resumer: resumer)
  }

  /// A call whose transport keeps its deadline in a loop of its own, under a lock it takes
  /// anyway, rather than in a ``DeadlineTimer`` (whose lock would be taken twice more per
  /// exchange): the transport asks ``firstLook(at:)`` when the transfer begins, calls
  /// ``timerFired(now:)`` when that comes (and again when it names a next look), and
  /// forgets the deadline when the transfer ends.
  package convenience init(
    options: TransportOptions, clock: any TransportClock, resumer: Resumer? = nil
  ) {
    self.init(options: options, clock: clock, timer: nil, resumer: resumer)
  }

  private init(
    options: TransportOptions, clock: any TransportClock, timer: DeadlineTimer?,
    resumer: Resumer?
  ) {
    let deadlines = TransportDeadlines(
      deadline: options.deadline, idleTimeout: options.idleTimeout, startingAt: clock.now)
    core = Locked(Core(deadlines: deadlines))
    rules = deadlines
    self.timer = timer
    self.clock = clock
    self.resumer = resumer
    watchesActivity = deadlines.watchesActivity
  }

  /// When a transport that keeps the deadline itself first looks at the call, whose transfer
  /// begins at `now`: the deadline, or the idle period's end, whichever is sooner. Read
  /// without the call's lock (from the rules as made), so a look may come a little after
  /// the idle period that began at the start: then the call is overdue.
  package func firstLook(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
    var atStart = rules
    atStart.touch(at: now)
    return atStart.due
  }

  // MARK: - Events

  /// As ``start(_:transfer:)``, but `make` is not called when the exchange is known to have
  /// ended already (for a transfer that costs something to make, a URLSession task).
  package func start(_ continuation: Continuation, making make: () -> Transfer) {
    let refused = core.withLock { core -> Step? in
      core.machine.refusesStart(continuation).map { Step(action: $0) }
    }
    if let refused { return perform(refused) }
    start(continuation, transfer: make())
  }

  /// The caller waits for the answer of `transfer`: it starts (its idle period with it) and
  /// its deadline is scheduled, unless the exchange ended first — then the caller has the
  /// error at once, and the transfer is discarded unstarted.
  ///
  /// The deadline is scheduled first, so that its token goes in with the start: the call's
  /// lock is taken once. A timer that fires before the start finds the exchange not started:
  /// it ends it when it is overdue (the start is then refused), or looks again later.
  package func start(_ continuation: Continuation, transfer: Transfer) {
    let now = clock.now
    let token = timer.flatMap { timer in firstLook(at: now).map { timer.schedule(self, at: $0) } }
    let step = core.withLock { core -> Step in
      let action = core.machine.start(continuation, transfer)
      // Refused (ended meanwhile): the unstarted transfer is let go at once, and the deadline.
      guard !core.machine.isFinished else {
        return Step(action: action, timerToken: token, ended: transfer)
      }
      core.deadlines.touch(at: now)
      core.transfer = transfer
      core.timerToken = token
      return Step(action: action)
    }
    perform(step)
  }

  /// The head arrived and the body is to stream: the caller gets the head with a body
  /// stream (holding at most `bufferSize` bytes for a slow reader); returns where the body
  /// goes, or `nil` when the caller has had its answer already.
  package func receivedHead(_ head: HTTPResponse, bufferSize: Int) -> TransportResponseBody.Writer?
  {
    let (body, writer) = TransportResponseBody.makeStream(bufferSize: bufferSize) { [weak self] in
      self?.end(with: $0)
    }
    let step = transition {
      $0.receivedHead(TransportResponse(head: head, body: body), writer: writer)
    }
    guard case .answer = step.action else { return nil }
    perform(step)
    return writer
  }

  /// The transfer completed with `result`.
  package func complete(_ result: Result<TransportResponse, HTTPError>) {
    perform(transition { $0.completed(result) })
  }

  /// The whole streamed response has come while the transfer still runs (a request body
  /// still being sent): the body ends for its reader, and the transfer is stopped.
  package func responseEndedFirst() {
    perform(transition { $0.responseEndedFirst() })
  }

  /// Ends the exchange now with `error` (cancelled, timed out, too large…), unless it has
  /// ended, and stops the transfer.
  package func end(with error: HTTPError) {
    perform(transition { $0.ended(with: error) })
  }

  /// A byte moved: the idle period starts again.
  package func touch() {
    guard watchesActivity else { return }
    let now = clock.now
    core.withLock { $0.deadlines.touch(at: now) }
  }

  /// The transfer waits for its reader, or for its request body to be produced: not idle
  /// until the matching ``resumedByCaller()``.
  package func pausedForCaller() {
    core.withLock { $0.deadlines.pause() }
  }

  /// The reader took bytes again, or body bytes came: the idle period starts afresh once no
  /// other pause holds.
  package func resumedByCaller() {
    let now = clock.now
    core.withLock { $0.deadlines.resume(at: now) }
  }

  // MARK: - State

  /// Whether every party has had its answer.
  package var isFinished: Bool { core.withLock { $0.machine.isFinished } }

  /// The body's writer, while the body streams.
  package var writer: TransportResponseBody.Writer? { core.withLock { $0.machine.writer } }

  // MARK: - The timer

  package func timerFired(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
    let transfer = core.withLock { $0.machine.transfer }
    let moved = transfer?.bytesMoved
    let active = transfer?.lastActivity
    let overdue = core.withLock { core -> Bool? in
      guard !core.machine.isFinished else { return nil }
      if let active { core.deadlines.touch(at: active) }
      if let moved, moved != core.bytesSeen {
        // Bytes moved unseen since the last look: a stall is noticed within twice the
        // idle timeout.
        core.bytesSeen = moved
        core.deadlines.touch(at: now)
      }
      return core.deadlines.isOverdue(at: now)
    }
    guard let overdue else { return nil }
    if overdue {
      end(with: .timedOut)
      return nil
    }
    // Paused for its reader, an exchange has no idle end: it is looked at again an idle
    // period later, so that the timer still has it when the reader resumes the transfer.
    return core.withLock { core in
      core.deadlines.due ?? core.deadlines.idleTimeout.map { now + $0 }
    }
  }

  // MARK: - Actions

  /// Feeds an event to the machine under the lock; returns its action, and, when the
  /// exchange has now ended, what must be let go (once: taken from the core).
  private func transition(_ event: (inout Machine) -> Machine.Action) -> Step {
    core.withLock { core in
      let action = event(&core.machine)
      guard core.machine.isFinished else { return Step(action: action) }
      return Step(action: action, timerToken: core.timerToken.take(), ended: core.transfer.take())
    }
  }

  /// An action, and what an exchange that ended with it lets go.
  private struct Step {
    var action: Machine.Action
    var timerToken: UInt64? = nil
    var ended: Transfer? = nil
  }

  /// Does what a transition decided, outside the lock. An exchange that has ended forgets
  /// its deadline and tells its transfer first, so that a caller resumed with the end finds
  /// everything let go (a temporary upload file deleted).
  private func perform(_ step: Step) {
    if let token = step.timerToken { timer?.cancel(token) }
    step.ended?.exchangeEnded()
    switch step.action {
    case .none:
      break
    case .start(let transfer):
      transfer.begin()
    case .refuse(let continuation, let error, let transfer):
      transfer.discard()
      resume(continuation, with: .failure(error))
    case .answer(let continuation, let result):
      resume(continuation, with: result)
    case .answerAndStop(let continuation, let error, let transfer):
      resume(continuation, with: .failure(error))
      transfer.stop()
    case .endBody(let writer, let error):
      if let error { writer.fail(error) } else { writer.finish() }
    case .endBodyAndStop(let writer, let error, let transfer):
      if let error { writer.fail(error) } else { writer.finish() }
      transfer.stop()
    }
  }

  /// Resumes the caller with `result`, through the transport's ``Resumer`` if it has one.
  private func resume(
    _ continuation: Continuation, with result: Result<TransportResponse, HTTPError>
  ) {
    guard let resumer else { return continuation.resume(returning: result) }
    resumer { continuation.resume(returning: result) }
  }
}
