import Courier

extension Walkthrough {
  // MARK: - Caching

  /// Fetches the details of the movie `id` three times through `cachedClient`, whose
  /// ``HTTPCache`` keeps what the server allows: from the server, from the cache with no
  /// request at all, and revalidated (a `304 Not Modified` confirms the stored copy). Prints
  /// where each answer came from and how long it took.
  func showCaching(of id: Int, using cachedClient: HTTPClient) async throws(HTTPError) {
    print("GET movie/\(id) three times, through a client with an HTTPCache:\n")
    let clock = ContinuousClock()
    let steps: [(String, HTTPCache.Policy)] = [
      ("first request", .useCache), ("again", .useCache), ("again, revalidated", .revalidate),
    ]
    for (label, policy) in steps {
      let start = clock.now
      let answer = try await cachedClient.response(
        for: MovieApi.details(id: id).cached(policy))
      let took = start.duration(to: clock.now)
      let source =
        switch answer.response.cacheStatus {
        case .hit: "from the cache, nothing sent"
        case .revalidated: "from the cache, confirmed by a 304"
        case .stale: "from the cache, stale"
        case .miss: "from the server, now stored"
        case .notUsed: "from the server"
        }
      let padded = label + String(repeating: " ", count: max(0, 20 - label.count))
      print("  \(padded)\(answer.value.title): \(source) (\(Format.milliseconds(took)))")
    }
  }
}
