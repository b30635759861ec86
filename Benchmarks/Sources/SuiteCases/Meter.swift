import Foundation

/// What one measured region cost: wall time, CPU time of the whole process (user + system,
/// every thread: URLSession's, NIO's and the caller's), and allocations.
struct Sample {
  /// Wall-clock seconds.
  var wall: Double
  /// CPU seconds, user + system, from `getrusage(RUSAGE_SELF)`.
  var cpu: Double
  /// `malloc`-family calls, counted by the program's ``AllocationCounter``; `nil` when it has
  /// none (`SuiteTimed`) or the region is not counted.
  var allocations: Int?
}

/// Counts `malloc`-family calls between `start` and `stop` (ordo-one's malloc interposer in
/// `Suite`).
public struct AllocationCounter: Sendable {
  let start: @Sendable () -> Void
  let stop: @Sendable () -> Int

  /// A counter that `start`s counting and returns the count at `stop`.
  public init(start: @escaping @Sendable () -> Void, stop: @escaping @Sendable () -> Int) {
    self.start = start
    self.stop = stop
  }
}

/// Measures a region of code.
enum Meter {
  /// The program's allocation counter: set once by ``SuiteMain/run(counting:)`` before any
  /// benchmark runs, read-only after (so unsynchronised access is safe).
  nonisolated(unsafe) static var counter: AllocationCounter?

  /// Runs `body` once and returns what it cost; allocations only when `countingAllocations`.
  ///
  /// Do not count allocations across a region in which threads exit (a server in this
  /// process closing connections): malloc-interposer 1.6 frees a thread's counter block in
  /// its TLS destructor but keeps using it for the frees that later destructors make, which
  /// corrupted the heap in about 1 run in 10 of `Suite coalescing off` (`free(): invalid
  /// pointer`, SIGSEGV); with counting off it never did (0 of 40).
  static func measure(countingAllocations: Bool = true, _ body: () async throws -> Void)
    async rethrows -> Sample
  {
    let counter = countingAllocations ? counter : nil
    counter?.start()
    let cpuStart = cpuSeconds()
    let start = ContinuousClock.now
    try await body()
    let wall = (ContinuousClock.now - start) / .seconds(1)
    let cpu = cpuSeconds() - cpuStart
    guard let counter else { return Sample(wall: wall, cpu: cpu, allocations: nil) }
    let allocations = counter.stop()
    return Sample(wall: wall, cpu: cpu, allocations: allocations > 0 ? allocations : nil)
  }

  /// ``measure(countingAllocations:_:)`` for synchronous code (the C floor).
  static func measureSync(_ body: () -> Void) -> Sample {
    let counter = counter
    counter?.start()
    let cpuStart = cpuSeconds()
    let start = ContinuousClock.now
    body()
    let wall = (ContinuousClock.now - start) / .seconds(1)
    let cpu = cpuSeconds() - cpuStart
    let allocations = counter?.stop()
    return Sample(wall: wall, cpu: cpu, allocations: allocations.flatMap { $0 > 0 ? $0 : nil })
  }

  /// User + system CPU seconds of the whole process so far.
  static func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
  }
}

/// One line of the Suite's output, which `suite.py` reads: `RESULT {json}`.
struct Report {
  /// The benchmark case.
  var benchmark: String
  /// The variant.
  var variant: String
  /// What the numbers are divided by: requests, pages, bursts or downloads.
  var units: Int
  /// What one unit is called.
  var unit: String
  /// The measured region.
  var sample: Sample
  /// Extra numbers: peak memory, requests that reached the server, …
  var extra: [String: Int] = [:]

  /// Prints the line.
  func print() {
    var object: [String: Any] = [
      "benchmark": benchmark, "variant": variant, "units": units, "unit": unit,
      "wall_s": sample.wall, "cpu_s": sample.cpu,
    ]
    if let allocations = sample.allocations { object["allocations"] = allocations }
    for (name, value) in extra { object[name] = value }
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    Swift.print("RESULT " + String(decoding: data, as: UTF8.self))
  }
}
