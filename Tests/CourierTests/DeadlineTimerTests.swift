import Dispatch
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("DeadlineTimer ends calls that outlive their deadline")
struct DeadlineTimerTests {
  /// A session whose completion handlers never run (its delegate queue is suspended), so
  /// only the timer or a cancellation can end a call.
  final class IdleSession: Sendable {
    let session: URLSession
    private let queue: OperationQueue

    init() {
      let queue = OperationQueue()
      queue.isSuspended = true
      self.queue = queue
      session = URLSession(
        configuration: URLSessionTransport.defaultSessionConfiguration(), delegate: nil,
        delegateQueue: queue)
    }

    func task() -> URLSessionTask {
      session.dataTask(with: URL(string: "http://127.0.0.1:9/")!) { _, _, _ in }
    }

    deinit {
      queue.isSuspended = false
      session.invalidateAndCancel()
    }
  }

  func uptime(after duration: Duration) -> UInt64 {
    DispatchTime.now().uptimeNanoseconds + UInt64(duration.components.attoseconds / 1_000_000_000)
      + UInt64(duration.components.seconds) * 1_000_000_000
  }

  @Test("a call whose deadline passes is resumed with timedOut")
  func firesTimedOut() async {
    let idle = IdleSession()
    let timer = DeadlineTimer()
    let call = DataTaskCall()
    _ = timer.schedule(call, at: uptime(after: .milliseconds(5)))
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { idle.task() }
    }
    guard case .failure(.timedOut) = result else {
      Issue.record("\(result)")
      return
    }
  }

  @Test("a deadline already past ends the call at once")
  func pastDeadline() async {
    let idle = IdleSession()
    let timer = DeadlineTimer()
    let call = DataTaskCall()
    _ = timer.schedule(call, at: 0)
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { idle.task() }
    }
    guard case .failure(.timedOut) = result else {
      Issue.record("\(result)")
      return
    }
  }

  @Test("an earlier deadline scheduled after a later one fires first")
  func rearmsForEarlierDeadline() async {
    let idle = IdleSession()
    let timer = DeadlineTimer()
    let late = DataTaskCall()
    let early = DataTaskCall()
    _ = timer.schedule(late, at: uptime(after: .seconds(3600)))
    _ = timer.schedule(early, at: uptime(after: .milliseconds(5)))
    let result = await withCheckedContinuation { continuation in
      early.start(continuation) { idle.task() }
    }
    guard case .failure(.timedOut) = result else {
      Issue.record("\(result)")
      return
    }
  }

  @Test("removed deadlines never come due, and the heap is compacted as they pile up")
  func removedDeadlines() {
    var schedule = DeadlineSchedule<Int>()
    for number in 0..<1000 {
      let id = schedule.add(number, at: 100)
      schedule.remove(id)
    }
    let kept = schedule.add(7, at: 150)
    #expect(schedule.count == 1)
    #expect(schedule.heapCount <= 64)
    #expect(schedule.earliest == 150)
    let due = schedule.popDue(now: 200)
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
