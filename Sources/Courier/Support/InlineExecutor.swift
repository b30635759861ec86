/// A task executor that runs each job at once, on the thread that enqueues it: a task that
/// prefers it continues right where it is resumed (on a transport's thread, inside the
/// callback that resumed it) instead of waiting for a thread of the global pool to wake.
///
/// Only for short stretches of Courier's own code that never block: a shared call's task,
/// between its transport's answer and handing that answer to the callers waiting for it
/// (``RequestCoalescer``). A job of such a task runs on whichever thread resumed it, so
/// nothing it does may wait for a lock that thread could hold.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class InlineExecutor: TaskExecutor {
  static let shared = InlineExecutor()

  func enqueue(_ job: consuming ExecutorJob) {
    job.runSynchronously(on: asUnownedTaskExecutor())
  }
}
