import Courier

extension Walkthrough {
  // MARK: - Fetching in parallel

  /// Fetches the details of every movie in `movies` twice, first one request after the
  /// other in a `for` loop, then `maximumConcurrent` at a time with `send(all:maximumConcurrent:)`,
  /// and prints both wall times and the speed-up.
  func fetchDetails(of movies: [Movie], maximumConcurrent: Int) async throws(HTTPError) {
    let endpoints = movies.map { MovieApi.details(id: $0.id) }
    let clock = ContinuousClock()

    var oneByOne: [Movie] = []
    let sequentialStart = clock.now
    for endpoint in endpoints {
      oneByOne.append(try await client.send(endpoint))
    }
    let sequential = sequentialStart.duration(to: clock.now)

    let parallelStart = clock.now
    let together = try await client.send(all: endpoints, maximumConcurrent: maximumConcurrent)
    let parallel = parallelStart.duration(to: clock.now)

    print("GET movie/{id} for each of the \(endpoints.count) movies on the page:\n")
    let sequentialLabel = "one by one, in a for loop:"
    let parallelLabel =
      "send(all:maximumConcurrent: \(maximumConcurrent)), \(maximumConcurrent) at a time:"
    let width = max(sequentialLabel.count, parallelLabel.count) + 2
    func padded(_ label: String) -> String {
      label + String(repeating: " ", count: width - label.count)
    }
    print("  \(padded(sequentialLabel))\(Format.seconds(sequential))")
    print(
      "  \(padded(parallelLabel))\(Format.seconds(parallel)) — "
        + "\(Format.speedUp(from: sequential, to: parallel)) faster")

    // `send(all:)` answers in the order of its endpoints, whatever order they finish in.
    guard together.map(\.id) == oneByOne.map(\.id) else {
      print("\nThe two ways found different movies.")
      return
    }
    let minutes = together.compactMap(\.runtime).reduce(0, +)
    print(
      "\nBoth found the same \(together.count) movies in the same order, "
        + "\(Format.runtime(minutes)) of film in all.")
  }
}
