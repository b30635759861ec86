/// Runs an operation with a deadline, for any transport: when the time is up the caller
/// gets ``HTTPError/timedOut`` at once, and the operation's task is cancelled.
///
/// The caller does not wait for the operation to notice its cancellation (a transport may
/// take its time), and a cancelled caller is resumed with ``HTTPError/cancelled`` at once
/// for the same reason. This costs two tasks and a sleep per request;
/// ``URLSessionTransport`` uses its ``DeadlineTimer`` instead.
enum Deadline {
  static func run<T: Sendable>(
    until deadline: ContinuousClock.Instant,
    _ operation: @escaping @Sendable () async throws(HTTPError) -> T
  ) async throws(HTTPError) -> T {
    let race = FirstOutcome<Result<T, HTTPError>>()
    let work = Task {
      do throws(HTTPError) {
        race.finish(.success(try await operation()))
      } catch {
        race.finish(.failure(error))
      }
    }
    let timer = Task {
      guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
      race.finish(.failure(.timedOut))
      work.cancel()
    }
    let outcome = await withTaskCancellationHandler {
      await race.value()
    } onCancel: {
      race.finish(.failure(.cancelled))
      work.cancel()
    }
    timer.cancel()
    return try outcome.get()
  }
}
