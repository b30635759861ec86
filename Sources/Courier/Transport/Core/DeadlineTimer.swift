/// Something with a deadline or an idle timeout that a ``DeadlineTimer`` wakes when due.
package protocol DeadlineTimed: AnyObject, Sendable {
  /// The timer's look at `now`: ends the work with ``HTTPError/timedOut`` and returns `nil`
  /// when it is overdue (or already over), or returns when to look again (a transfer that
  /// was active during its idle period).
  func timerFired(now: ContinuousClock.Instant) -> ContinuousClock.Instant?
}

/// One timer for every deadline and idle timeout of a transport, on one
/// ``TransportClock``: wakes each exchange when it is due, which ends it or names when to
/// look again. Every kind of request — buffered, streamed, downloaded — of every transport
/// is timed by it; tests give it a manual clock.
///
/// Scheduling costs a dictionary insert and a heap push. One sleeping task waits for the
/// earliest deadline; it is replaced only when a new deadline comes before the one it waits
/// for (rarely: requests mostly share one timeout, so deadlines arrive in order).
package final class DeadlineTimer: Sendable {
  private struct State: Sendable {
    var schedule = DeadlineSchedule<any DeadlineTimed>()
    /// The instant the sleeper waits for, and which arming it is.
    var armedFor: ContinuousClock.Instant?
    var generation: UInt64 = 0
    var sleeper: Task<Void, Never>?
    /// The tokens of work being woken, outside the lock: one cancelled meanwhile is not
    /// scheduled again when it names its next look.
    var waking: Set<UInt64> = []
  }

  private let state = Locked(State())
  /// The clock deadlines are read from and waited on.
  package let clock: any TransportClock

  /// A timer on `clock` (by default the continuous clock).
  package init(clock: any TransportClock = ContinuousClock()) {
    self.clock = clock
  }

  deinit {
    state.withLock { $0.sleeper }?.cancel()
  }

  /// Wakes `work` at `deadline`, and again whenever it asks, unless cancelled first;
  /// returns the token for ``cancel(_:)``.
  package func schedule(_ work: any DeadlineTimed, at deadline: ContinuousClock.Instant)
    -> UInt64
  {
    let (id, arming) = state.withLock { state in
      (state.schedule.add(work, at: deadline), Self.arming(&state))
    }
    if let arming { arm(arming) }
    return id
  }

  /// Forgets the deadline with this token (its work has ended), even while its work is
  /// being woken.
  package func cancel(_ id: UInt64) {
    state.withLock { state in
      state.schedule.remove(id)
      if !state.waking.isEmpty { state.waking.remove(id) }
    }
  }

  /// The number of deadlines it keeps (tests).
  var count: Int { state.withLock { $0.schedule.count } }

  /// Wakes whatever is due now.
  private func fire(_ generation: UInt64) {
    let now = clock.now
    let (due, arming) = state.withLock { state in
      let due = state.schedule.popDue(now: now)
      for (id, _) in due { state.waking.insert(id) }
      if state.generation == generation { state.armedFor = nil }
      return (due, Self.arming(&state))
    }
    if let arming { arm(arming) }
    // Work that ends cancels its transfer; work still active names its next look, kept
    // under the same token.
    for (id, work) in due {
      let next = work.timerFired(now: now)
      let arming = state.withLock { state -> (ContinuousClock.Instant, UInt64)? in
        guard state.waking.remove(id) != nil, let next else { return nil }
        state.schedule.add(work, at: next, id: id)
        return Self.arming(&state)
      }
      if let arming { arm(arming) }
    }
  }

  /// A new sleeper is needed when the earliest deadline comes before the one the sleeper
  /// waits for: returns it (decided under the lock, so that armings are numbered in order).
  private static func arming(_ state: inout State) -> (ContinuousClock.Instant, UInt64)? {
    guard let next = state.schedule.earliest else { return nil }
    guard state.armedFor.map({ next < $0 }) ?? true else { return nil }
    state.armedFor = next
    state.generation &+= 1
    return (next, state.generation)
  }

  /// Starts the sleeper of an arming, outside the lock, and cancels the one it replaces
  /// (or itself, when a later arming got there first).
  private func arm(_ arming: (at: ContinuousClock.Instant, generation: UInt64)) {
    let clock = self.clock
    let sleeper = Task.detached { [weak self] in
      do {
        try await clock.wait(until: arming.at)
      } catch {
        return  // replaced
      }
      self?.fire(arming.generation)
    }
    let replaced = state.withLock { state -> Task<Void, Never>? in
      guard state.generation == arming.generation else { return sleeper }
      defer { state.sleeper = sleeper }
      return state.sleeper
    }
    replaced?.cancel()
  }
}

/// The deadlines a ``DeadlineTimer`` keeps: a min-heap of (deadline, token) and the live
/// entries by token. Removed entries stay in the heap until they come up or the heap is
/// compacted, which happens whenever it holds more than twice the live entries.
struct DeadlineSchedule<Work: Sendable>: Sendable {
  typealias Instant = ContinuousClock.Instant

  private struct Entry: Sendable {
    var deadline: Instant
    var id: UInt64
  }

  private var heap = MinHeap<Entry>(by: { $0.deadline < $1.deadline })
  private var live: [UInt64: (deadline: Instant, work: Work)] = [:]
  private var nextID: UInt64 = 0

  /// The number of live deadlines.
  var count: Int { live.count }

  /// The number of heap entries, removed ones included.
  var heapCount: Int { heap.count }

  /// The earliest live deadline.
  var earliest: Instant? {
    mutating get {
      while let top = heap.first, live[top.id] == nil { heap.pop() }
      return heap.first?.deadline
    }
  }

  /// Adds `work` at `deadline`, under `id` if given (a work asking to be woken again);
  /// returns its token.
  @discardableResult
  mutating func add(_ work: Work, at deadline: Instant, id: UInt64? = nil) -> UInt64 {
    let id = id ?? nextID
    if id == nextID { nextID += 1 }
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
  mutating func popDue(now: Instant) -> [(id: UInt64, work: Work)] {
    var due: [(id: UInt64, work: Work)] = []
    while let top = heap.first, top.deadline <= now {
      heap.pop()
      if let entry = live.removeValue(forKey: top.id) { due.append((top.id, entry.work)) }
    }
    return due
  }
}
