import Dispatch

/// One timer for every deadline and idle timeout of a transport: wakes each call when it is
/// due (``DataTaskCall/timerFired(now:)``), which ends it with ``HTTPError/timedOut`` or
/// names when to look again (a transfer that was active during its idle period).
///
/// A task group racing each request against `Task.sleep` cost about 17 µs per request;
/// this costs a dictionary insert, a heap push and one dispatch timer that is re-armed only
/// when a new deadline comes before the one it is set for (rarely: requests mostly share
/// one timeout, so deadlines arrive in order).
///
/// Finished calls leave their heap entry behind until it comes up or the heap is compacted,
/// which happens whenever it holds more than twice the live entries.
final class DeadlineTimer: @unchecked Sendable {
  // `@unchecked Sendable`: `state` is a lock-guarded box, and a dispatch source is
  // thread-safe; `source` is only scheduled while `state`'s lock is held.

  private struct Entry {
    var deadline: UInt64
    var id: UInt64
  }

  private struct State {
    var heap = MinHeap<Entry>(by: { $0.deadline < $1.deadline })
    var live: [UInt64: (deadline: UInt64, call: DataTaskCall)] = [:]
    var nextID: UInt64 = 0
    var armedFor: UInt64?
  }

  private let state = Locked(State())
  private let source: any DispatchSourceTimer

  init() {
    source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "Courier.DeadlineTimer"))
    source.setEventHandler { [weak self] in self?.fire() }
    source.activate()
  }

  deinit {
    source.cancel()
  }

  /// Wakes `call` at `deadline` (uptime nanoseconds), and again whenever it asks, unless
  /// cancelled first; returns the token for ``cancel(_:)``.
  func schedule(_ call: DataTaskCall, at deadline: UInt64) -> UInt64 {
    state.withLock { state in
      let id = state.nextID
      state.nextID += 1
      add(id, call, at: deadline, in: &state)
      return id
    }
  }

  private func add(_ id: UInt64, _ call: DataTaskCall, at deadline: UInt64, in state: inout State) {
    state.live[id] = (deadline, call)
    state.heap.push(Entry(deadline: deadline, id: id))
    if state.armedFor.map({ deadline < $0 }) ?? true {
      arm(for: deadline, in: &state)
    }
  }

  /// Forgets the deadline with this token (its call has finished).
  func cancel(_ id: UInt64) {
    state.withLock { state in
      state.live[id] = nil
      if state.heap.count > 64 && state.heap.count > 2 * state.live.count {
        state.heap = MinHeap(
          state.live.map { Entry(deadline: $0.value.deadline, id: $0.key) },
          by: state.heap.areInOrder)
      }
    }
  }

  /// The number of deadlines not yet cancelled or fired.
  var pendingCount: Int { state.withLock { $0.live.count } }

  /// The number of heap entries, finished ones included (for tests of compaction).
  var heapCount: Int { state.withLock { $0.heap.count } }

  private func fire() {
    let now = DispatchTime.now().uptimeNanoseconds
    let due: [(id: UInt64, call: DataTaskCall)] = state.withLock { state in
      var due: [(id: UInt64, call: DataTaskCall)] = []
      while let top = state.heap.first, top.deadline <= now {
        state.heap.pop()
        if let entry = state.live.removeValue(forKey: top.id) {
          due.append((top.id, entry.call))
        }
      }
      while let top = state.heap.first, state.live[top.id] == nil {
        state.heap.pop()
      }
      if let next = state.heap.first {
        arm(for: next.deadline, in: &state)
      } else {
        state.armedFor = nil
      }
      return due
    }
    // Outside the lock: a call that ends cancels its task; one still active names its
    // next look, kept under the same token (unless the call was cancelled meanwhile, in
    // which case it has ended and asks for none).
    for (id, call) in due {
      guard let next = call.timerFired(now: now) else { continue }
      state.withLock { add(id, call, at: next, in: &$0) }
    }
  }

  private func arm(for deadline: UInt64, in state: inout State) {
    state.armedFor = deadline
    source.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .milliseconds(1))
  }
}
