extension HTTPClient {
  // MARK: - Many at once

  /// Sends every endpoint, at most `maximumConcurrent` at a time, and returns the answers in the
  /// order of `endpoints`. On the first failure the requests still running are cancelled,
  /// no more are started, and that failure is thrown.
  ///
  /// ```swift
  /// let movies = try await client.send(all: ids.map(MovieApi.details), maximumConcurrent: 8)
  /// ```
  ///
  /// Cancelling the calling task cancels every request at once. The client's own
  /// `maximumConcurrentRequests`, if set, applies on top.
  ///
  /// - Throws: the first request's ``HTTPError``; ``HTTPError/invalidRequest(reason:)`` when
  ///   `maximumConcurrent` is below 1, even for an empty collection.
  public nonisolated func send<E: Endpoint>(
    all endpoints: some Collection<E>, maximumConcurrent: Int = 8
  )
    async throws(HTTPError) -> [E.Response]
  {
    let outcomes = try await run(
      Array(endpoints), maximumConcurrent: maximumConcurrent, failFast: true)
    var values: [E.Response] = []
    values.reserveCapacity(outcomes.count)
    for outcome in outcomes {
      values.append(try outcome.get())
    }
    return values
  }

  /// Sends every endpoint, at most `maximumConcurrent` at a time, and returns each outcome in
  /// the order of `endpoints`; one failure does not stop the others. Never throws.
  ///
  /// ```swift
  /// for case .success(let movie) in await client.results(for: ids.map(MovieApi.details)) { … }
  /// ```
  ///
  /// Cancelling the calling task cancels every request; those not finished report
  /// ``HTTPError/cancelled``. A `maximumConcurrent` below 1 is refused as by
  /// ``send(all:maximumConcurrent:)``, nothing sent: as this method never throws, every
  /// outcome is that ``HTTPError/invalidRequest(reason:)`` (an empty collection has none).
  public nonisolated func results<E: Endpoint>(
    for endpoints: some Collection<E>, maximumConcurrent: Int = 8
  ) async -> [Result<E.Response, HTTPError>] {
    let list = Array(endpoints)
    do throws(HTTPError) {
      return try await run(list, maximumConcurrent: maximumConcurrent, failFast: false)
    } catch {
      return list.map { _ in .failure(error) }
    }
  }

  /// The outcome of each endpoint in order, with at most `maximumConcurrent` in flight. With
  /// `failFast`, the first failure cancels the rest and is the only failure reported.
  private nonisolated func run<E: Endpoint>(
    _ endpoints: [E], maximumConcurrent: Int, failFast: Bool
  )
    async throws(HTTPError) -> [Result<E.Response, HTTPError>]
  {
    guard maximumConcurrent >= 1 else {
      throw .invalidRequest(
        reason: "maximumConcurrent is \(maximumConcurrent); it must be at least 1")
    }
    guard !endpoints.isEmpty else { return [] }
    var outcomes = [Result<E.Response, HTTPError>?](repeating: nil, count: endpoints.count)
    var firstFailure: HTTPError?
    await withTaskGroup(of: (Int, Result<E.Response, HTTPError>).self) { group in
      var next = 0
      func startNext() {
        let index = next
        let endpoint = endpoints[index]
        next += 1
        group.addTask {
          do throws(HTTPError) {
            return (index, .success(try await self.send(endpoint)))
          } catch {
            return (index, .failure(error))
          }
        }
      }
      while next < min(maximumConcurrent, endpoints.count) { startNext() }
      while let (index, outcome) = await group.next() {
        outcomes[index] = outcome
        if failFast, case .failure(let error) = outcome {
          firstFailure = error
          group.cancelAll()
          break
        }
        if next < endpoints.count { startNext() }
      }
    }
    if let firstFailure { throw firstFailure }
    return outcomes.map { $0 ?? .failure(.cancelled) }
  }
}
