/// A counting semaphore for tasks: FIFO, cancellable, and never leaking a permit.
///
/// A place in line is taken synchronously (``enqueue()``), so the order of calls is the
/// order of service; ``Ticket/wait(whenWaiting:)`` then suspends until a permit is handed
/// over. Every ticket must be waited on, and every successful wait matched by one
/// ``release()``. A released permit goes straight to the first waiter (no barging). A waiter
/// whose task is cancelled leaves the line at once with ``HTTPError/cancelled`` and never
/// holds a permit, and so does one whose deadline comes first, with ``HTTPError/timedOut``;
/// if either and a hand-over race, the lock decides, and a waiter that was handed the permit
/// keeps it (and must release it).
///
/// The line is a value (``Line``) under a lock; each transition returns the waiter to
/// resume once the lock is released, and an impossible transition traps.
package final class PermitQueue: Sendable {
  /// The permits and the line of waiters.
  struct Line: Sendable {
    /// How a wait ends: with a permit, or out of line for a reason.
    enum Outcome: Sendable, Equatable {
      case granted
      case left(HTTPError)
    }

    private enum Waiter: Sendable {
      /// In line, not yet suspended.
      case queued
      /// Suspended in `wait`.
      case suspended(CheckedContinuation<Outcome, Never>)
      /// Handed a permit before it suspended.
      case granted
      /// Taken out of line before it suspended (its deadline came): told why when it does.
      case left(HTTPError)
    }

    private(set) var available: Int
    /// Waiters still waiting (queued or suspended), not yet granted or gone.
    private(set) var pending = 0
    private var nextID: UInt64 = 0
    /// Waiting tickets in arrival order; those that left are skipped lazily.
    private var order: [UInt64] = []
    private var head = 0
    private var waiters: [UInt64: Waiter] = [:]

    init(permits: Int) {
      available = permits
    }

    /// Takes a permit at once (`nil`) when one is free and nobody waits, or a place in line.
    mutating func enqueue() -> UInt64? {
      if available > 0 && pending == 0 {
        available -= 1
        return nil
      }
      defer { nextID += 1 }
      order.append(nextID)
      waiters[nextID] = .queued
      pending += 1
      return nextID
    }

    /// Waiter `id` is about to suspend with `continuation`: how its wait has ended already
    /// (a permit held, or out of line: its task is cancelled, or it was taken out), or `nil`
    /// once it waits.
    mutating func suspend(
      _ id: UInt64, _ continuation: CheckedContinuation<Outcome, Never>, isCancelled: Bool
    ) -> Outcome? {
      switch waiters[id] {
      case .granted:
        waiters[id] = nil
        return .granted
      case .left(let error):
        waiters[id] = nil
        return .left(error)
      case nil:
        return .left(.cancelled)
      case .queued where isCancelled:
        waiters[id] = nil
        pending -= 1
        return .left(.cancelled)
      case .queued:
        waiters[id] = .suspended(continuation)
        return nil
      case .suspended:
        preconditionFailure("permit ticket \(id) waited on twice")
      }
    }

    /// Waiter `id` leaves the line now, for `reason` (its task was cancelled, its deadline
    /// came), so that a release skips it and an enqueue is not held behind it. Returns its
    /// continuation to resume when it was suspended; one not yet suspended learns the
    /// reason when it suspends. One already holding a permit keeps it.
    mutating func leave(_ id: UInt64, because reason: HTTPError) -> CheckedContinuation<
      Outcome, Never
    >? {
      guard isWaiting(id) else { return nil }
      return endWait(id, marking: .left(reason))
    }

    /// A permit comes back: to the first waiter in line (returned when it is suspended), or
    /// to the pool.
    mutating func release() -> CheckedContinuation<Outcome, Never>? {
      defer { compact() }
      while head < order.count {
        let id = order[head]
        head += 1
        guard isWaiting(id) else { continue }
        return endWait(id, marking: .granted)
      }
      available += 1
      return nil
    }

    /// Whether waiter `id` is still in line (queued or suspended).
    private func isWaiting(_ id: UInt64) -> Bool {
      switch waiters[id] {
      case .queued, .suspended: true
      case .granted, .left, nil: false
      }
    }

    /// Ends the wait of waiter `id`, in line: one not yet suspended is marked `mark` (what it
    /// finds when it suspends); a suspended one is forgotten, and its continuation returned.
    private mutating func endWait(_ id: UInt64, marking mark: Waiter) -> CheckedContinuation<
      Outcome, Never
    >? {
      pending -= 1
      guard case .suspended(let continuation) = waiters[id] else {
        waiters[id] = mark
        return nil
      }
      waiters[id] = nil
      return continuation
    }

    /// Drops the served part of the line once it dominates, so the line does not grow.
    private mutating func compact() {
      if head > 64 && head * 2 > order.count {
        order.removeFirst(head)
        head = 0
      }
    }
  }

  /// A place in line.
  package struct Ticket: Sendable {
    fileprivate let queue: PermitQueue
    fileprivate let id: UInt64?

    /// Suspends until this ticket holds a permit; throws ``HTTPError/cancelled`` (holding
    /// none) if the task is cancelled first, and ``HTTPError/timedOut`` if `deadline` comes
    /// first on `timer`'s clock. `whenWaiting` runs if it has to wait, once it is suspended
    /// in line.
    package func wait(
      until deadline: ContinuousClock.Instant? = nil, on timer: DeadlineTimer? = nil,
      whenWaiting: () -> Void = {}
    ) async throws(HTTPError) {
      guard let id else { return }
      guard let deadline, let timer else {
        return try await queue.wait(id, whenWaiting: whenWaiting)
      }
      // The timer takes the ticket out of line when the deadline comes: no task races the
      // wait (a task group's child waiting here crashed the Swift 6.3.1 runtime when the
      // caller was cancelled).
      let token = timer.schedule(Expiry(queue: queue, id: id), at: deadline)
      defer { timer.cancel(token) }
      try await queue.wait(id, whenWaiting: whenWaiting)
    }
  }

  /// A ticket's deadline, in a ``DeadlineTimer``: takes it out of line when it comes.
  private final class Expiry: DeadlineTimed {
    let queue: PermitQueue
    let id: UInt64

    init(queue: PermitQueue, id: UInt64) {
      self.queue = queue
      self.id = id
    }

    func timerFired(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
      queue.leave(id, because: .timedOut)
      return nil
    }
  }

  /// The number of permits in all.
  package let limit: Int
  private let line: Locked<Line>

  /// A queue with `limit` permits (at least 1).
  package init(limit: Int) {
    self.limit = max(1, limit)
    line = Locked(Line(permits: max(1, limit)))
  }

  /// Permits not held by anyone right now.
  package var availablePermits: Int { line.withLock { $0.available } }

  /// Tickets waiting for a permit right now.
  package var waitingCount: Int { line.withLock { $0.pending } }

  /// Takes a permit at once if one is free and nobody waits, or a place in line.
  package func enqueue() -> Ticket {
    Ticket(queue: self, id: line.withLock { $0.enqueue() })
  }

  /// Takes a permit, waiting in line until `deadline` on `timer`'s clock at the latest
  /// (then ``HTTPError/timedOut``), or as long as it takes without one; `whenWaiting` runs
  /// if it has to wait, once it is suspended in line.
  package func acquire(
    until deadline: ContinuousClock.Instant? = nil, on timer: DeadlineTimer? = nil,
    whenWaiting: () -> Void = {}
  ) async throws(HTTPError) {
    try await enqueue().wait(until: deadline, on: timer, whenWaiting: whenWaiting)
  }

  /// Gives a permit back: to the first waiter in line, or to the pool.
  package func release() {
    line.withLock { $0.release() }?.resume(returning: .granted)
  }

  /// Takes ticket `id` out of line for `reason`, unless it holds a permit already.
  fileprivate func leave(_ id: UInt64, because reason: HTTPError) {
    line.withLock { $0.leave(id, because: reason) }?.resume(returning: .left(reason))
  }

  private func wait(_ id: UInt64, whenWaiting: () -> Void) async throws(HTTPError) {
    let outcome = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Line.Outcome, Never>) in
        let isCancelled = Task.isCancelled
        if let now = line.withLock({ $0.suspend(id, continuation, isCancelled: isCancelled) }) {
          continuation.resume(returning: now)
        } else {
          whenWaiting()
        }
      }
    } onCancel: {
      leave(id, because: .cancelled)
    }
    if case .left(let reason) = outcome { throw reason }
  }
}
