/// A counting semaphore for tasks: FIFO, cancellable, and never leaking a permit.
///
/// A place in line is taken synchronously (``enqueue()``), so the order of calls is the
/// order of service; ``Ticket/wait(whenWaiting:)`` then suspends until a permit is handed
/// over. Every ticket must be waited on, and every successful wait matched by one
/// ``release()``. A released permit goes straight to the first waiter (no barging). A waiter
/// whose task is cancelled leaves the line at once with ``HTTPError/cancelled`` and never
/// holds a permit; if cancellation and a hand-over race, the lock decides, and a waiter that
/// was handed the permit keeps it (and must release it).
///
/// The line is a value (``Line``) under a lock; each transition returns the waiter to
/// resume once the lock is released, and an impossible transition traps.
package final class PermitQueue: Sendable {
  /// The permits and the line of waiters.
  struct Line: Sendable {
    private enum Waiter: Sendable {
      /// In line, not yet suspended.
      case queued
      /// Suspended in `wait`.
      case suspended(CheckedContinuation<Bool, Never>)
      /// Handed a permit before it suspended.
      case granted
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

    /// Waiter `id` is about to suspend with `continuation`: `true` if it holds a permit
    /// already, `false` if it has left (or its task is cancelled), `nil` once it waits.
    mutating func suspend(
      _ id: UInt64, _ continuation: CheckedContinuation<Bool, Never>, isCancelled: Bool
    ) -> Bool? {
      switch waiters[id] {
      case .granted:
        waiters[id] = nil
        return true
      case nil:
        return false
      case .queued where isCancelled:
        waiters[id] = nil
        pending -= 1
        return false
      case .queued:
        waiters[id] = .suspended(continuation)
        return nil
      case .suspended:
        preconditionFailure("permit ticket \(id) waited on twice")
      }
    }

    /// Waiter `id`'s task was cancelled: it leaves the line, now, so that a release skips it
    /// and an enqueue is not held behind it. Returns its continuation to resume when it was
    /// suspended.
    mutating func cancel(_ id: UInt64) -> CheckedContinuation<Bool, Never>? {
      switch waiters[id] {
      case .queued, .suspended:
        return leave(id)
      case .granted, nil:
        return nil
      }
    }

    /// Takes waiter `id`, still waiting, out of the line; returns its continuation when it
    /// was suspended.
    private mutating func leave(_ id: UInt64) -> CheckedContinuation<Bool, Never>? {
      defer { pending -= 1 }
      guard case .suspended(let continuation) = waiters.removeValue(forKey: id) else {
        return nil
      }
      return continuation
    }

    /// A permit comes back: to the first waiter in line (returned when it is suspended), or
    /// to the pool.
    mutating func release() -> CheckedContinuation<Bool, Never>? {
      defer { compact() }
      while head < order.count {
        let id = order[head]
        head += 1
        switch waiters[id] {
        case .queued:
          waiters[id] = .granted
          pending -= 1
          return nil
        case .suspended:
          return leave(id)
        case .granted, nil:
          continue
        }
      }
      available += 1
      return nil
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
    /// none) if the task is cancelled first. `whenWaiting` runs if it has to wait, once it
    /// is suspended in line.
    package func wait(whenWaiting: () -> Void = {}) async throws(HTTPError) {
      guard let id else { return }
      try await queue.wait(id, whenWaiting: whenWaiting)
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

  /// Takes a permit, waiting in line as long as it takes; `whenWaiting` runs if it has to
  /// wait, once it is suspended in line.
  package func acquire(whenWaiting: () -> Void = {}) async throws(HTTPError) {
    try await enqueue().wait(whenWaiting: whenWaiting)
  }

  /// Gives a permit back: to the first waiter in line, or to the pool.
  package func release() {
    line.withLock { $0.release() }?.resume(returning: true)
  }

  private func wait(_ id: UInt64, whenWaiting: () -> Void) async throws(HTTPError) {
    let granted = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let isCancelled = Task.isCancelled
        if let now = line.withLock({ $0.suspend(id, continuation, isCancelled: isCancelled) }) {
          continuation.resume(returning: now)
        } else {
          whenWaiting()
        }
      }
    } onCancel: {
      line.withLock { $0.cancel(id) }?.resume(returning: false)
    }
    guard granted else { throw .cancelled }
  }
}
