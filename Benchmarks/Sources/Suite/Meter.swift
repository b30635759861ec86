import Foundation
import MallocInterposerSwift

/// What one measured region cost: wall time, CPU time of the whole process (user + system,
/// every thread: URLSession's, NIO's and the caller's), and allocations.
struct Sample {
  /// Wall-clock seconds.
  var wall: Double
  /// CPU seconds, user + system, from `getrusage(RUSAGE_SELF)`.
  var cpu: Double
  /// `malloc`-family calls counted by ordo-one's malloc interposer (the Suite runs with it in
  /// `LD_PRELOAD`); `nil` when the interposer is not loaded.
  var allocations: Int?
}

/// Measures a region of code.
enum Meter {
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
    if countingAllocations {
      MallocInterposerSwift.initialize()
      MallocInterposerSwift.hook()
    }
    let cpuStart = cpuSeconds()
    let start = ContinuousClock.now
    try await body()
    let wall = (ContinuousClock.now - start) / .seconds(1)
    let cpu = cpuSeconds() - cpuStart
    guard countingAllocations else { return Sample(wall: wall, cpu: cpu, allocations: nil) }
    MallocInterposerSwift.unhook()
    let allocations = MallocInterposerSwift.getStatistics().mallocCount
    return Sample(wall: wall, cpu: cpu, allocations: allocations > 0 ? allocations : nil)
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
