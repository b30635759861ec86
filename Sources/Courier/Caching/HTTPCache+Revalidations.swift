import Foundation

/// The revalidations a cache runs in the background for `stale-while-revalidate` (RFC 5861
/// §3): at most one per stored response at a time.
final class BackgroundRevalidations: Sendable {
  private let running = Locked<[String: Task<Void, Never>]>([:])

  /// Runs `revalidate` in a task of its own unless one for `key` is running; the caller
  /// does not wait, and its cancellation does not reach it.
  func start(_ key: String, _ revalidate: @escaping @Sendable () async -> Void) {
    running.withLock { running in
      guard running[key] == nil else { return }
      running[key] = Task(priority: .utility) { [self] in
        await revalidate()
        _ = self.running.withLock { $0.removeValue(forKey: key) }
      }
    }
  }

  /// Returns once every revalidation running now has finished.
  func finished() async {
    for task in running.withLock({ Array($0.values) }) { await task.value }
  }
}
