/// Runs an operation with a deadline, for any transport: when the time is up the
/// operation's task is cancelled and the caller gets ``HTTPError/timedOut``.
///
/// Structured and general, but it costs two child tasks and a sleep per request;
/// ``URLSessionTransport`` uses its ``DeadlineTimer`` instead.
enum Deadline {
  static func run<T: Sendable>(
    until deadline: ContinuousClock.Instant,
    _ operation: @escaping @Sendable () async throws(HTTPError) -> T
  ) async throws(HTTPError) -> T {
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
          try await Task.sleep(until: deadline, clock: .continuous)
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
