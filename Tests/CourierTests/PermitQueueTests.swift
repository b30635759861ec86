import CourierTestSupport
import CourierTesting
import Testing

@testable import Courier

@Suite("PermitQueue: FIFO, cancellable, never leaking", .timeLimit(.minutes(1)))
struct PermitQueueTests {
  /// Awaits a ticket in a task that records its name once it holds the permit.
  func holder(_ ticket: PermitQueue.Ticket, _ name: String, log: Locked<[String]>, got: Signal)
    -> Task<Void, any Error>
  {
    Task {
      try await ticket.wait()
      log.withLock { $0.append(name) }
      got.fire()
    }
  }

  @Test("free permits are taken at once; released permits go to waiters in arrival order")
  func fifo() async throws {
    let queue = PermitQueue(limit: 1)
    try await queue.acquire()
    #expect(queue.availablePermits == 0)
    let log = Locked<[String]>([])
    let names = ["a", "b", "c", "d"]
    let signals = names.map { _ in Signal() }
    let tickets = names.map { _ in queue.enqueue() }  // places taken in this order
    // Start the waiting tasks in reverse: arrival order is the tickets', not the tasks'.
    let tasks = zip(tickets, zip(names, signals)).reversed().map { ticket, pair in
      holder(ticket, pair.0, log: log, got: pair.1)
    }
    for (index, signal) in signals.enumerated() {
      queue.release()
      await watched { await signal.wait() }
      #expect(log.withLock { $0 } == Array(names.prefix(index + 1)))
    }
    for task in tasks { try await task.value }
    queue.release()
    #expect(queue.availablePermits == 1)
  }

  @Test("a waiter still in line at its deadline leaves with timedOut, and the next is served")
  func deadlineInLine() async throws {
    let clock = ManualClock()
    let timer = DeadlineTimer(clock: clock)
    let queue = PermitQueue(limit: 1)
    try await queue.acquire()
    let suspended = Signal()
    let late = Task {
      try await queue.acquire(
        until: clock.now + .seconds(10), on: timer, whenWaiting: { suspended.fire() })
    }
    await watched { await suspended.wait() }
    let behind = queue.enqueue()
    await clock.sleepers(atLeast: 1)  // the deadline's
    clock.advance(by: .seconds(10))
    let outcome = await watched { await late.result }
    #expect(throws: HTTPError.timedOut) { try outcome?.get() }
    #expect(queue.waitingCount == 1)  // only `behind`
    queue.release()  // skips the waiter that left: goes to `behind`
    try await behind.wait()
    queue.release()
    #expect(queue.availablePermits == 1)
    #expect(timer.count == 0)
  }

  @Test("a permit handed over before the deadline is kept, and the deadline forgotten")
  func deadlineNotReached() async throws {
    let clock = ManualClock()
    let timer = DeadlineTimer(clock: clock)
    let queue = PermitQueue(limit: 1)
    try await queue.acquire()
    let suspended = Signal()
    let waiter = Task {
      try await queue.acquire(
        until: clock.now + .seconds(10), on: timer, whenWaiting: { suspended.fire() })
    }
    await watched { await suspended.wait() }
    queue.release()
    try await waiter.value
    #expect(timer.count == 0)
    clock.advance(by: .seconds(20))  // the deadline passes with the permit held: kept
    #expect(queue.availablePermits == 0)
    queue.release()
    #expect(queue.availablePermits == 1)
  }

  @Test("a deadline that comes before the waiter suspends: timedOut when it does, holding nothing")
  func deadlineBeforeSuspending() async throws {
    let clock = ManualClock()
    let timer = DeadlineTimer(clock: clock)
    let queue = PermitQueue(limit: 1)
    try await queue.acquire()
    let ticket = queue.enqueue()
    // The deadline is past already: the timer takes the ticket out of line at once, before
    // or after `wait` suspends.
    let outcome = await watched {
      do throws(HTTPError) {
        try await ticket.wait(until: clock.now - .seconds(1), on: timer)
        return "granted"
      } catch {
        return "\(error)"
      }
    }
    #expect(outcome == "\(HTTPError.timedOut)")
    #expect(queue.waitingCount == 0)
    queue.release()
    #expect(queue.availablePermits == 1)
  }

  @Test("a suspended waiter that is cancelled leaves at once and never takes a permit")
  func cancelledWaiter() async throws {
    let queue = PermitQueue(limit: 1)
    try await queue.acquire()
    let suspended = Signal()
    let waiting = Task { try await queue.acquire(whenWaiting: { suspended.fire() }) }
    await watched { await suspended.wait() }  // it is in line, suspended
    #expect(queue.waitingCount == 1)
    let behind = queue.enqueue()
    waiting.cancel()
    await expectCancelled(waiting)
    #expect(queue.waitingCount == 1)  // only `behind`
    queue.release()  // skips the cancelled waiter: goes to `behind`
    try await behind.wait()
    #expect(queue.availablePermits == 0)
    queue.release()
    #expect(queue.availablePermits == 1)
    #expect(queue.waitingCount == 0)
  }

  @Test("a permit freed while the line holds only a granted ticket is taken at once")
  func noStrandedPermit() async throws {
    let queue = PermitQueue(limit: 2)
    try await queue.acquire()
    try await queue.acquire()
    let granted = queue.enqueue()
    queue.release()  // to `granted`, not yet collected
    queue.release()  // to the pool
    let next = queue.enqueue()  // nobody waits: takes the free permit without queueing
    #expect(queue.waitingCount == 0)
    #expect(queue.availablePermits == 0)
    try await next.wait()
    try await granted.wait()
    queue.release()
    queue.release()
    #expect(queue.availablePermits == 2)
  }

  @Test("a waiter cancelled before it suspends is skipped, and its permit is not lost")
  func cancelledBeforeSuspending() async throws {
    let queue = PermitQueue(limit: 1)
    try await queue.acquire()
    let first = queue.enqueue()
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await first.wait()
    }
    await #expect(throws: HTTPError.cancelled) { try await task.value }
    queue.release()
    #expect(queue.availablePermits == 1)
  }

  @Test("thousands of acquire–release pairs with cancellations end with every permit back")
  func noLeaks() async throws {
    let queue = PermitQueue(limit: 3)
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<2000 {
        group.addTask {
          if index % 7 == 0 { withUnsafeCurrentTask { $0?.cancel() } }
          do throws(HTTPError) {
            try await queue.acquire()
            await Task.yield()
            queue.release()
          } catch {
            // cancelled while waiting: holds nothing
          }
        }
        if index % 11 == 0 { group.cancelAll() }
      }
    }
    #expect(queue.availablePermits == 3)
    #expect(queue.waitingCount == 0)
  }
}
