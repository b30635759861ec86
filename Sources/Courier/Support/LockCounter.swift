import Foundation

/// Counts how often Courier's locks are taken, for the budget of lock acquisitions per request
/// (DESIGN.md: at most 8 per GET), in tests and in `swift run lockcount`.
///
/// A lock counts for the counter bound to ``current`` in the task that made it (a
/// ``Locked`` box, the curl driver's lock): run a client and its transport, made inside
/// `LockCounter.$current.withValue(counter) { … }`, and `counter` sees every acquisition of
/// their locks — on whichever thread — and none of the locks of other work in the process
/// (tests running alongside, a loopback server made outside the scope). Locks made on a
/// thread that is no task, or by a task that binds no counter, are not counted.
///
/// Off, it costs a task-local read when a lock is made (no task-local bound: a nil pointer)
/// and a nil check when one is taken.
///
/// `@unchecked Sendable`: `count` is only reached under `lock`.
package final class LockCounter: @unchecked Sendable {
  /// The counter the locks made by the current task count for.
  @TaskLocal package static var current: LockCounter?

  private let lock = NSLock()
  private var count = 0

  package init() {}

  /// The acquisitions counted so far.
  package var acquisitions: Int {
    lock.lock()
    defer { lock.unlock() }
    return count
  }

  /// Counts one acquisition.
  func counted() {
    lock.lock()
    count += 1
    lock.unlock()
  }
}
