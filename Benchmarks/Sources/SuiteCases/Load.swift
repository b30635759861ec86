/// Fetches request number `index` and returns a small check value (movies decoded, bytes).
typealias Fetch = @Sendable (_ index: Int) async throws -> Int

/// Drives a fetch: `requests` of them, one after another or `inFlight` at a time.
enum Load {
  /// Runs `requests` fetches numbered from `first`, keeping `inFlight` running (a task group
  /// that starts the next as soon as one ends), and returns the sum of their check values.
  static func run(requests: Int, inFlight: Int, first: Int = 0, _ fetch: @escaping Fetch)
    async throws -> Int
  {
    if inFlight <= 1 {
      var total = 0
      for index in first..<first + requests { total += try await fetch(index) }
      return total
    }
    return try await withThrowingTaskGroup(of: Int.self) { group in
      var next = first
      let end = first + requests
      var total = 0
      while next < end, next - first < inFlight {
        let index = next
        group.addTask { try await fetch(index) }
        next += 1
      }
      while let value = try await group.next() {
        total += value
        if next < end {
          let index = next
          group.addTask { try await fetch(index) }
          next += 1
        }
      }
      return total
    }
  }
}
