/// A counting semaphore for tasks: FIFO, cancellable, and never leaking a permit.
///
/// A place in line is taken synchronously (``enqueue()``), so the order of calls is the
/// order of service; ``Ticket/wait()`` then suspends until a permit is handed over. Every
/// ticket must be waited on, and every successful wait matched by one ``release()``. A
/// released permit goes straight to the first waiter (no barging). A waiter whose task is
/// cancelled leaves the line at once with ``HTTPError/cancelled`` and never holds a permit;
/// if cancellation and a hand-over race, the lock decides, and a waiter that was handed the
/// permit keeps it (and must release it).
package final class PermitQueue: Sendable {
  private struct State {
    var available: Int
    var nextID: UInt64 = 0
    /// Waiting tickets in arrival order; cancelled ones are skipped lazily.
    var line: [UInt64] = []
    var head = 0
    var waiters: [UInt64: Waiter] = [:]
    /// Waiters still waiting (queued or suspended), not yet granted or gone.
    var pending = 0

    /// Drops the served part of the line once it dominates, so the line does not grow.
    mutating func compact() {
      if head > 64 && head * 2 > line.count {
        line.removeFirst(head)
        head = 0
      }
    }
  }

  private enum Waiter {
    /// In line, not yet suspended.
    case queued
    /// Suspended in `wait()`.
    case suspended(CheckedContinuation<Bool, Never>)
    /// Handed a permit before it suspended.
    case granted
  }

  /// A place in line.
  package struct Ticket: Sendable {
    fileprivate let queue: PermitQueue
    fileprivate let id: UInt64?

    /// Suspends until this ticket holds a permit; throws ``HTTPError/cancelled`` (holding
    /// none) if the task is cancelled first.
    package func wait() async throws(HTTPError) {
      guard let id else { return }
      try await queue.wait(id)
    }
  }

  /// The number of permits in all.
  package let limit: Int
  private let state: Locked<State>

  /// A queue with `limit` permits (at least 1).
  package init(limit: Int) {
    self.limit = max(1, limit)
    state = Locked(State(available: max(1, limit)))
  }

  /// Permits not held by anyone right now.
  package var availablePermits: Int { state.withLock { $0.available } }

  /// Tickets waiting for a permit right now.
  package var waitingCount: Int { state.withLock { $0.pending } }

  /// Called each time a waiter suspends (for tests that must act on a waiting ticket).
  package let onSuspend = Locked<(@Sendable () -> Void)?>(nil)

  /// Takes a permit at once if one is free and nobody waits, or a place in line.
  package func enqueue() -> Ticket {
    state.withLock { state in
      if state.available > 0 && state.pending == 0 {
        state.available -= 1
        return Ticket(queue: self, id: nil)
      }
      let id = state.nextID
      state.nextID += 1
      state.line.append(id)
      state.waiters[id] = .queued
      state.pending += 1
      return Ticket(queue: self, id: id)
    }
  }

  /// Takes a permit, waiting in line as long as it takes.
  package func acquire() async throws(HTTPError) {
    try await enqueue().wait()
  }

  /// Gives a permit back: to the first waiter in line, or to the pool.
  package func release() {
    let resume: CheckedContinuation<Bool, Never>? = state.withLock { state in
      while state.head < state.line.count {
        let id = state.line[state.head]
        state.head += 1
        switch state.waiters[id] {
        case .queued:
          state.waiters[id] = .granted
          state.pending -= 1
          state.compact()
          return nil
        case .suspended(let continuation):
          state.waiters[id] = nil
          state.pending -= 1
          state.compact()
          return continuation
        case .granted, nil:
          continue
        }
      }
      state.available += 1
      state.compact()
      return nil
    }
    resume?.resume(returning: true)
  }

  private func wait(_ id: UInt64) async throws(HTTPError) {
    let granted = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let immediate: Bool? = state.withLock { state in
          switch state.waiters[id] {
          case .granted:
            state.waiters[id] = nil
            return true
          case nil:
            return false  // cancelled before it suspended
          case .queued:
            if Task.isCancelled {
              state.waiters[id] = nil
              state.pending -= 1
              return false
            }
            state.waiters[id] = .suspended(continuation)
            return nil
          case .suspended:
            return nil
          }
        }
        if let immediate {
          continuation.resume(returning: immediate)
        } else {
          onSuspend.withLock { $0 }?()
        }
      }
    } onCancel: {
      let continuation: CheckedContinuation<Bool, Never>? = state.withLock { state in
        switch state.waiters[id] {
        case .queued:
          // Leaves the line now, so that a release skips it and an enqueue is not held
          // behind it.
          state.waiters[id] = nil
          state.pending -= 1
          return nil
        case .suspended(let continuation):
          state.waiters[id] = nil
          state.pending -= 1
          return continuation
        case .granted, nil:
          return nil
        }
      }
      continuation?.resume(returning: false)
    }
    guard granted else { throw .cancelled }
  }
}
