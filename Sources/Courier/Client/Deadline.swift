/// Runs an operation with a deadline of Courier's own, the same on every platform: when the
/// time is up the operation's task is cancelled and the caller gets ``HTTPError/timedOut``.
///
/// URLSession's own timeout cannot serve: on Linux it is truncated to whole seconds and
/// measures idleness, not the whole transfer.
enum Deadline {
  static func run<T: Sendable>(
    within timeout: Duration?,
    _ operation: @escaping @Sendable () async throws(HTTPError) -> T
  ) async throws(HTTPError) -> T {
    guard let timeout else { return try await operation() }
    let outcome = await withTaskGroup(of: Result<T, HTTPError>?.self) { group in
      group.addTask {
        do throws(HTTPError) {
          return .success(try await operation())
        } catch {
          return .failure(error)
        }
      }
      group.addTask {
        do {
          try await Task.sleep(for: timeout)
          return .failure(.timedOut)
        } catch {
          return nil  // cancelled: the operation finished first, or the caller gave up
        }
      }
      var first: Result<T, HTTPError>?
      while first == nil, let next = await group.next() {
        first = next
      }
      group.cancelAll()
      return first ?? .failure(.cancelled)
    }
    return try outcome.get()
  }
}
