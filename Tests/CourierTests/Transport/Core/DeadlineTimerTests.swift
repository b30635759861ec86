import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The one timer every transport times its requests by, on a manual clock: nothing here
/// waits for real time.
@Suite("DeadlineTimer wakes work when it is due, on its clock")
struct DeadlineTimerTests {
  /// Work that records the instants it was woken at, asks to be woken again at the
  /// instants it is given, and signals each wake.
  final class Work: DeadlineTimed {
    private let state: Locked<(woken: [ContinuousClock.Instant], next: [ContinuousClock.Instant])>
    private let wakes = AsyncStream<Void>.makeStream()

    init(next: [ContinuousClock.Instant] = []) {
      state = Locked(([], next))
    }

    var woken: [ContinuousClock.Instant] { state.withLock { $0.woken } }

    /// Waits for the next wake.
    func nextWake() async {
      var iterator = wakes.stream.makeAsyncIterator()
      _ = await iterator.next()
    }

    func timerFired(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
      let next = state.withLock { state in
        state.woken.append(now)
        return state.next.isEmpty ? nil : state.next.removeFirst()
      }
      wakes.continuation.yield()
      return next
    }
  }

  /// The system's sleep takes its instant in whole seconds of an `Int64`, and trapped on one
  /// further off: a request's timeout of `.seconds(Int64.max)` crashed the process.
  @Test("on the continuous clock, a deadline too far for one sleep waits; a near one wakes")
  func farDeadline() async {
    let timer = DeadlineTimer()
    let far = Work()
    let near = Work()
    let farToken = timer.schedule(far, at: .now.advanced(by: .seconds(Int64.max)))
    _ = timer.schedule(near, at: .now.advanced(by: .milliseconds(5)))
    await near.nextWake()
    #expect(near.woken.count == 1)
    #expect(far.woken.isEmpty)
    timer.cancel(farToken)
  }

  @Test("the continuous clock waits for a near instant (the good path beside it)")
  func nearInstant() async throws {
    let clock = ContinuousClock()
    let target = clock.now.advanced(by: .milliseconds(5))
    try await clock.wait(until: target)
    #expect(clock.now >= target)
  }

  @Test("work is woken when its deadline passes, not before")
  func wakesWhenDue() async {
    let clock = ManualClock()
    let timer = DeadlineTimer(clock: clock)
    let work = Work()
    let start = clock.now
    _ = timer.schedule(work, at: start + .seconds(30))
    await clock.sleepers(atLeast: 1)
    clock.advance(by: .seconds(29))
    #expect(work.woken.isEmpty)
    clock.advance(by: .seconds(1))
    await work.nextWake()
    #expect(work.woken == [start + .seconds(30)])
  }

  @Test("a deadline already past wakes its work at once")
  func pastDeadline() async {
    let clock = ManualClock()
    let timer = DeadlineTimer(clock: clock)
    let work = Work()
    _ = timer.schedule(work, at: clock.now - .seconds(1))
    await work.nextWake()
    #expect(work.woken == [clock.now])
  }

  @Test("an earlier deadline scheduled after a later one wakes first; the later one still comes")
  func rearmsForEarlierDeadline() async {
    let clock = ManualClock()
    let timer = DeadlineTimer(clock: clock)
    let late = Work()
    let early = Work()
    let start = clock.now
    _ = timer.schedule(late, at: start + .seconds(3600))
    await clock.sleepers(atLeast: 1)
    _ = timer.schedule(early, at: start + .milliseconds(5))
    // The sleeper for the hour is replaced by one for 5 ms (which, if it starts waiting
    // after the clock moved, returns at once).
    clock.advance(by: .milliseconds(5))
    await early.nextWake()
    #expect(late.woken.isEmpty)
    await clock.sleepers(atLeast: 1)
    clock.advance(by: .seconds(3600))
    await late.nextWake()
    #expect(late.woken == [start + .seconds(3600) + .milliseconds(5)])
  }

  @Test("work that names its next look is woken again then, under the same token")
  func wakesAgain() async {
    let clock = ManualClock()
    let timer = DeadlineTimer(clock: clock)
    let start = clock.now
    let work = Work(next: [start + .seconds(20)])
    let token = timer.schedule(work, at: start + .seconds(10))
    await clock.sleepers(atLeast: 1)
    clock.advance(by: .seconds(10))
    await work.nextWake()
    await clock.sleepers(atLeast: 1)
    clock.advance(by: .seconds(10))
    await work.nextWake()
    #expect(work.woken == [start + .seconds(10), start + .seconds(20)])
    timer.cancel(token)  // already ended: forgetting it again is harmless
  }

  @Test("cancelled work is never woken")
  func cancelled() async {
    let clock = ManualClock()
    let timer = DeadlineTimer(clock: clock)
    let gone = Work()
    let kept = Work()
    let start = clock.now
    let token = timer.schedule(gone, at: start + .seconds(1))
    _ = timer.schedule(kept, at: start + .seconds(2))
    timer.cancel(token)
    await clock.sleepers(atLeast: 1)
    clock.advance(by: .seconds(1))
    await clock.sleepers(atLeast: 1)
    clock.advance(by: .seconds(1))
    await kept.nextWake()
    #expect(gone.woken.isEmpty)
  }

  /// Work that, woken, is cancelled (as work ending by another path is) before it returns
  /// its next look.
  final class CancelledWhileWoken: DeadlineTimed {
    let timer: DeadlineTimer
    let token = Locked<UInt64?>(nil)
    let wakes = Locked(0)

    init(timer: DeadlineTimer) { self.timer = timer }

    func timerFired(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
      wakes.withLock { $0 += 1 }
      if let token = token.withLock({ $0 }) { timer.cancel(token) }
      return now + .seconds(10)
    }
  }

  @Test("work cancelled while it is being woken is not scheduled again")
  func cancelledWhileWoken() async {
    let clock = ManualClock()
    let timer = DeadlineTimer(clock: clock)
    let work = CancelledWhileWoken(timer: timer)
    let first = Work()
    let second = Work()
    let start = clock.now
    // Each marker comes due in the same pass as the work, after it (its deadline is a
    // nanosecond later): its wake follows the work's.
    work.token.withLock { $0 = timer.schedule(work, at: start + .seconds(1)) }
    _ = timer.schedule(first, at: start + .seconds(1) + .nanoseconds(1))
    await clock.sleepers(atLeast: 1)
    clock.advance(by: .seconds(1) + .nanoseconds(1))
    await first.nextWake()
    #expect(work.wakes.withLock { $0 } == 1)
    // Had it been scheduled again, the work's next look (10 s on) would come before this.
    _ = timer.schedule(second, at: clock.now + .seconds(10) + .nanoseconds(1))
    await clock.sleepers(atLeast: 1)
    clock.advance(by: .seconds(10) + .nanoseconds(1))
    await second.nextWake()
    #expect(work.wakes.withLock { $0 } == 1)
    #expect(timer.count == 0)
  }

  @Test("removed deadlines never come due, and the heap is compacted as they pile up")
  func removedDeadlines() {
    let start = ContinuousClock.now
    var schedule = DeadlineSchedule<Int>()
    for number in 0..<1000 {
      let id = schedule.add(number, at: start + .seconds(100))
      schedule.remove(id)
    }
    let kept = schedule.add(7, at: start + .seconds(150))
    #expect(schedule.count == 1)
    #expect(schedule.heapCount <= 64)
    #expect(schedule.earliest == start + .seconds(150))
    let due = schedule.popDue(now: start + .seconds(200))
    #expect(due.map(\.id) == [kept])
    #expect(due.map(\.work) == [7])
  }

  @Test("the heap gives back its elements in order")
  func heapOrder() {
    var heap = MinHeap<Int>(by: <)
    let values = (0..<500).map { ($0 * 7919) % 503 }
    for value in values { heap.push(value) }
    var popped: [Int] = []
    while let value = heap.pop() { popped.append(value) }
    #expect(popped == values.sorted())
    let built = MinHeap(values, by: <)
    #expect(built.first == values.min())
  }
}
