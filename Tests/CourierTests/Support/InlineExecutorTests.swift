import CourierTestSupport
import Foundation
import Testing

@testable import Courier

@Suite("InlineExecutor: a task that prefers it continues on the thread that resumes it")
struct InlineExecutorTests {
  /// Starts a task (inline or not) that waits for a continuation, resumes it from a thread of
  /// its own, and returns whether the task went on on that thread.
  func continuesOnResumingThread(inline: Bool) async -> Bool {
    let parked = Locked<CheckedContinuation<Void, Never>?>(nil)
    let waiting = Signal()
    let resumer = Locked<pthread_t?>(nil)
    let after = Locked<pthread_t?>(nil)
    let task = immediateTask(inline: inline) {
      await withCheckedContinuation { continuation in
        parked.withLock { $0 = continuation }
        waiting.fire()
      }
      after.withLock { $0 = pthread_self() }
    }
    await watched { await waiting.wait() }
    // The resuming thread lives until the threads are compared, so that no thread started
    // meanwhile can be given its identity.
    let compared = DispatchSemaphore(value: 0)
    defer { compared.signal() }
    let thread = Thread {
      resumer.withLock { $0 = pthread_self() }
      parked.withLock { $0 }?.resume()
      compared.wait()
    }
    thread.start()
    await task.value
    guard let resumed = resumer.withLock({ $0 }), let went = after.withLock({ $0 }) else {
      return false
    }
    return pthread_equal(resumed, went) != 0
  }

  @Test("inline: the code after the await runs on the resuming thread")
  func inline() async {
    #expect(await continuesOnResumingThread(inline: true))
  }

  @Test("not inline: it runs on a thread of the global pool instead")
  func pooled() async {
    #expect(await !continuesOnResumingThread(inline: false))
  }
}
