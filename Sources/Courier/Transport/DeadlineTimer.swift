import Dispatch

/// Something with a deadline or an idle timeout that a ``DeadlineTimer`` wakes when due.
package protocol DeadlineTimed: AnyObject, Sendable {
  /// The timer's look at `now` (uptime nanoseconds): ends the work with
  /// ``HTTPError/timedOut`` and returns `nil` when it is overdue (or already over), or
  /// returns when to look again (a transfer that was active during its idle period).
  func timerFired(now: UInt64) -> UInt64?
}

/// One timer for every deadline and idle timeout of a transport: wakes each call when it is
/// due, which ends it or names when to look again. Every kind of request — buffered,
/// streamed, downloaded — is timed by it.
///
/// A task group racing each request against `Task.sleep` cost about 17 µs per request;
/// this costs a dictionary insert, a heap push and one dispatch timer that is re-armed only
/// when a new deadline comes before the one it is set for (rarely: requests mostly share
/// one timeout, so deadlines arrive in order).
package final class DeadlineTimer: @unchecked Sendable {
  // `@unchecked Sendable`: `state` is a lock-guarded box, and a dispatch source is
  // thread-safe (it is only re-armed while `state`'s lock is held).
  private struct State: Sendable {
    var schedule = DeadlineSchedule<any DeadlineTimed>()
    var armedFor: UInt64?
  }

  private let state = Locked(State())
  private let source: any DispatchSourceTimer

  package init() {
    source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "Courier.DeadlineTimer"))
    source.setEventHandler { [weak self] in self?.fire() }
    source.activate()
  }

  deinit {
    source.cancel()
  }

  /// Wakes `work` at `deadline` (uptime nanoseconds), and again whenever it asks, unless
  /// cancelled first; returns the token for ``cancel(_:)``.
  package func schedule(_ work: any DeadlineTimed, at deadline: UInt64) -> UInt64 {
    state.withLock { state in
      let id = state.schedule.add(work, at: deadline)
      rearm(&state)
      return id
    }
  }

  /// Forgets the deadline with this token (its work has ended).
  package func cancel(_ id: UInt64) {
    state.withLock { $0.schedule.remove(id) }
  }

  private func fire() {
    let now = DispatchTime.now().uptimeNanoseconds
    let due = state.withLock { state in
      let due = state.schedule.popDue(now: now)
      state.armedFor = nil
      rearm(&state)
      return due
    }
    // Outside the lock: work that ends cancels its task; work still active names its next
    // look, kept under the same token.
    for (id, work) in due {
      guard let next = work.timerFired(now: now) else { continue }
      state.withLock { state in
        state.schedule.add(work, at: next, id: id)
        rearm(&state)
      }
    }
  }

  /// Arms the dispatch timer for the earliest deadline when it is earlier than the one it
  /// is set for. (Under the lock, so that two re-armings cannot land out of order; arming
  /// a dispatch source does no I/O and never blocks.)
  private func rearm(_ state: inout State) {
    guard let next = state.schedule.earliest else { return }
    guard state.armedFor.map({ next < $0 }) ?? true else { return }
    state.armedFor = next
    source.schedule(deadline: DispatchTime(uptimeNanoseconds: next), leeway: .milliseconds(1))
  }
}

/// The deadlines a ``DeadlineTimer`` keeps: a min-heap of (deadline, token) and the live
/// entries by token. Removed entries stay in the heap until they come up or the heap is
/// compacted, which happens whenever it holds more than twice the live entries.
struct DeadlineSchedule<Work: Sendable>: Sendable {
  private struct Entry: Sendable {
    var deadline: UInt64
    var id: UInt64
  }

  private var heap = MinHeap<Entry>(by: { $0.deadline < $1.deadline })
  private var live: [UInt64: (deadline: UInt64, work: Work)] = [:]
  private var nextID: UInt64 = 0

  /// The number of live deadlines.
  var count: Int { live.count }

  /// The number of heap entries, removed ones included.
  var heapCount: Int { heap.count }

  /// The earliest live deadline.
  var earliest: UInt64? {
    mutating get {
      while let top = heap.first, live[top.id] == nil { heap.pop() }
      return heap.first?.deadline
    }
  }

  /// Adds `work` at `deadline`, under `id` if given (a work asking to be woken again);
  /// returns its token.
  @discardableResult
  mutating func add(_ work: Work, at deadline: UInt64, id: UInt64? = nil) -> UInt64 {
    let id =
      id
      ?? {
        defer { nextID += 1 }
        return nextID
      }()
    live[id] = (deadline, work)
    heap.push(Entry(deadline: deadline, id: id))
    return id
  }

  /// Removes the deadline with token `id`.
  mutating func remove(_ id: UInt64) {
    live[id] = nil
    if heap.count > 64 && heap.count > 2 * live.count {
      heap = MinHeap(
        live.map { Entry(deadline: $0.value.deadline, id: $0.key) }, by: heap.areInOrder)
    }
  }

  /// Removes and returns every live deadline at or before `now`.
  mutating func popDue(now: UInt64) -> [(id: UInt64, work: Work)] {
    var due: [(id: UInt64, work: Work)] = []
    while let top = heap.first, top.deadline <= now {
      heap.pop()
      if let entry = live.removeValue(forKey: top.id) { due.append((top.id, entry.work)) }
    }
    return due
  }
}
