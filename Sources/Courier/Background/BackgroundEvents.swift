import Foundation

/// The events of a ``BackgroundSession``, as an `AsyncSequence` that never ends by itself:
/// events that came while no loop was reading (a relaunched app that had not started reading
/// yet) wait for the first loop that does. Each event goes to one reader. Of the progress
/// that waits so, each transfer's latest is kept in place of the earlier: a session nobody
/// reads holds an event or two per transfer, not one per chunk.
public struct BackgroundEvents: AsyncSequence, Sendable {
  /// An event.
  public typealias Element = BackgroundEvent
  /// Events never fail: a transfer's failure is an event.
  public typealias Failure = Never

  let hub: BackgroundEventHub

  /// Starts reading.
  public func makeAsyncIterator() -> Iterator {
    Iterator(hub: hub)
  }

  /// Reads the events.
  public struct Iterator: AsyncIteratorProtocol {
    let hub: BackgroundEventHub

    /// The next event; `nil` only when the reading task is cancelled.
    public mutating func next() async -> BackgroundEvent? {
      await hub.next()
    }

    /// The next event; `nil` only when the reading task is cancelled.
    public mutating func next(isolation actor: isolated (any Actor)?) async -> BackgroundEvent? {
      await hub.next()
    }
  }
}

/// Where a session's events wait for a reader, and readers for an event.
final class BackgroundEventHub: Sendable {
  private struct State: Sendable {
    var pending = UnreadEvents()
    var readers: [(id: UInt64, waiter: CheckedContinuation<BackgroundEvent?, Never>)] = []
    var nextReader: UInt64 = 0
    /// Transfers that have not posted their last event yet.
    var active = 0
    /// Waiting for every transfer to have posted its last event (the app delegate's
    /// hand-off in the process), read or not.
    var settled: [CheckedContinuation<Void, Never>] = []
  }

  private let state = Locked(State())

  /// The events waiting for a reader (tests).
  var unreadCount: Int { state.withLock { $0.pending.count } }

  /// A transfer starts: the hand-off waits for its last event.
  func started() {
    state.withLock { $0.active += 1 }
  }

  /// Hands `event` to a waiting reader, or keeps it for the next; `last` when it is its
  /// transfer's last.
  func post(_ event: BackgroundEvent, last: Bool = false) {
    let (reader, settled) = state.withLock {
      state -> (CheckedContinuation<BackgroundEvent?, Never>?, [CheckedContinuation<Void, Never>])
      in
      var settled: [CheckedContinuation<Void, Never>] = []
      if last {
        state.active -= 1
        if state.active == 0 { swap(&settled, &state.settled) }
      }
      guard !state.readers.isEmpty else {
        state.pending.append(event)
        return (nil, settled)
      }
      return (state.readers.removeFirst().waiter, settled)
    }
    reader?.resume(returning: event)
    for waiter in settled { waiter.resume() }
  }

  /// The next event, once there is one; `nil` when the calling task is cancelled.
  func next() async -> BackgroundEvent? {
    let id = state.withLock { state in
      state.nextReader += 1
      return state.nextReader
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let event = state.withLock { state -> BackgroundEvent?? in
          if Task.isCancelled { return .some(nil) }
          if let event = state.pending.popFirst() { return .some(event) }
          state.readers.append((id, continuation))
          return nil
        }
        if let event { continuation.resume(returning: event) }
      }
    } onCancel: {
      let reader = state.withLock { state -> CheckedContinuation<BackgroundEvent?, Never>? in
        guard let index = state.readers.firstIndex(where: { $0.id == id }) else { return nil }
        return state.readers.remove(at: index).waiter
      }
      reader?.resume(returning: nil)
    }
  }

  /// Returns once every transfer started has posted its last event, whether or not anything
  /// has read it: the events are in the session's buffer.
  func settled() async {
    await withCheckedContinuation { continuation in
      let now = state.withLock { state in
        if state.active == 0 { return true }
        state.settled.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }
}

/// The events that wait for a reader, first in first out, read in constant time; a transfer's
/// progress that is still unread is replaced by its newer progress, in its place (before the
/// transfer's end, which comes last).
struct UnreadEvents: Sendable {
  private var events: [BackgroundEvent] = []
  /// The index of the next event to read.
  private var head = 0
  /// Where each transfer's unread progress stands in `events`.
  private var progress: [UUID: Int] = [:]

  /// The number of unread events.
  var count: Int { events.count - head }

  /// Adds `event`, in place of its transfer's unread progress when it is progress. An end
  /// (finished or failed) is its transfer's last: no progress after it replaces one before.
  mutating func append(_ event: BackgroundEvent) {
    let id = event.transfer.id
    guard case .progress = event else {
      progress[id] = nil
      return events.append(event)
    }
    if let index = progress[id] {
      events[index] = event
      return
    }
    progress[id] = events.count
    events.append(event)
  }

  /// Takes the next event, if any.
  mutating func popFirst() -> BackgroundEvent? {
    guard head < events.count else { return nil }
    let event = events[head]
    if progress[event.transfer.id] == head { progress[event.transfer.id] = nil }
    head += 1
    if head == events.count {
      events.removeAll(keepingCapacity: events.count <= 64)
      head = 0
    } else if head >= 64 && head * 2 >= events.count {
      events.removeFirst(head)
      for (id, index) in progress { progress[id] = index - head }
      head = 0
    }
    return event
  }
}
