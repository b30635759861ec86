import Foundation

/// A value guarded by a lock, for the few places where state is shared across threads
/// that are not tasks (URLSession callbacks, cancellation handlers, socket threads).
///
/// `package`: shared with CourierTesting and the tests, hidden from users.
///
/// `@unchecked Sendable` is safe because `value` is only reached inside `withLock`,
/// which holds `lock` for the whole access.
package final class Locked<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value
  /// Where its acquisitions are counted (the counter of the task that made it), if anywhere.
  private let counter = LockCounter.current

  package init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    counter?.counted()
    defer { lock.unlock() }
    return try body(&value)
  }
}
