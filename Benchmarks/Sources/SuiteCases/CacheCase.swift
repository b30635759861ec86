import BenchmarkFixtures
import Courier
import Foundation

/// What Courier's `HTTPCache` costs and saves: the same GET + decode of the 3 KB page,
/// sequentially, answered by the network (no cache), by a fresh entry in memory, by a fresh
/// entry on disk (memory budget 0: every hit reads and checks its file), or revalidated with
/// nginx's `304` each time (`no-cache`); and `fill`, which stores `requests` distinct URLs in
/// a 16 MiB memory store to show that it stays within its budget (`fill-off`: the same
/// requests with no cache, the memory they take anyway).
///
///   Suite cache network|memory-hit|disk-hit|revalidated|fill|fill-off --url URL [--requests 3000]
///                    [--dir DIR]
///
/// nginx serves `cached/` with `max-age=3600` and `revalidate/` with `no-cache` (see
/// nginx.conf.template); both hold `page.json`.
enum CacheCase {
  /// The variants, by name.
  static let variants = ["network", "memory-hit", "disk-hit", "revalidated", "fill", "fill-off"]
  /// The memory budget of the `fill` variant.
  static let fillBudget = 16 * 1024 * 1024

  /// Runs one variant and prints its report.
  static func run(_ arguments: Arguments) async throws {
    let base = try arguments.url("url")
    let requests = try arguments.int("requests", default: 3000)
    let directory = URL(fileURLWithPath: arguments.string("dir", default: NSTemporaryDirectory()))
      .appendingPathComponent("courier-cache-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let cache: HTTPCache?
    var path = "cached/page.json"
    switch arguments.variant {
    case "network": cache = nil
    case "memory-hit": cache = HTTPCache()
    case "disk-hit": cache = try HTTPCache(memoryCapacity: 0, directory: directory)
    case "revalidated":
      cache = HTTPCache()
      path = "revalidate/page.json"
    case "fill": cache = HTTPCache(memoryCapacity: fillBudget)
    case "fill-off": cache = nil
    default: throw SuiteError.unknownVariant("cache", arguments.variant)
    }
    // Over URLSession, as BENCHMARKS.md measured it (on Linux the default is CurlTransport).
    let client = HTTPClient(
      baseURL: base, configuration: .init(cache: cache), transport: URLSessionTransport())
    let resource = path
    let distinct = arguments.variant.hasPrefix("fill")
    let fetch: Fetch = { index in
      let query: Query = distinct ? ["n": index] : Query()
      return try await client.send(Request<MoviePage>(path: resource, query: query)).results.count
    }
    _ = try await Load.run(requests: distinct ? 1 : 200, inFlight: 1, first: requests, fetch)
    ProcessMemory.resetPeak()
    let baseline = ProcessMemory.residentKiB
    var checked = 0
    let sample = try await Meter.measure {
      checked = try await Load.run(requests: requests, inFlight: 1, fetch)
    }
    guard checked == requests * 20 else {
      throw SuiteError.unexpected("decoded \(checked) movies, expected \(requests * 20)")
    }
    // A last request proves what answers: a hit for the cached variants.
    let last = try await client.response(for: Request<MoviePage>(path: path))
    var extra = [
      "baseline_rss_kib": baseline, "peak_rss_kib": ProcessMemory.peakKiB,
      "from_cache": last.response.cacheStatus.isFromCache ? 1 : 0,
    ]
    if let cache {
      extra["cache_memory_kib"] = cache.memoryUsage / 1024
      extra["cache_budget_kib"] = cache.memoryCapacity / 1024
    }
    Report(
      benchmark: "cache", variant: arguments.variant, units: requests, unit: "request",
      sample: sample, extra: extra
    ).print()
  }
}
