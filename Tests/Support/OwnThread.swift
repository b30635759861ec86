import Foundation

/// Runs `work` on a thread of its own and returns what it returns: for work that blocks (a
/// child process waited for, a socket or pipe read until it ends, a file written and synced).
///
/// Swift's cooperative pool has as many threads as the machine has cores (two on a small CI
/// machine), shared by every test of a run: a test that blocks one of them holds up every
/// other test's tasks, and under load a whole run stalls into its time limits.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try work() }) }.start()
  }
}

/// Runs `work`, which cannot fail, on a thread of its own (see the throwing form).
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    Thread { continuation.resume(returning: work()) }.start()
  }
}
