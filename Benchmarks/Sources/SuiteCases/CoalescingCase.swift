import BenchmarkFixtures
import Courier
import CourierTesting
import Foundation

/// Bursts of 64 identical concurrent GETs through one client, request coalescing on or off,
/// against CourierTesting's LoopbackServer in this process (it counts the requests that reach
/// it; nginx cannot), which answers after `delay-ms` like a real API would. Allocations are not
/// counted: they would include the server's.
///
///   Suite coalescing on|off [--bursts 20] [--callers 64] [--delay-ms 10]
enum CoalescingCase {
  /// The variants, by name.
  static let variants = ["off", "on"]

  /// Runs one variant and prints its report.
  static func run(_ arguments: Arguments) async throws {
    let bursts = try arguments.int("bursts", default: 20)
    let callers = try arguments.int("callers", default: 64)
    let delay = Duration.milliseconds(try arguments.int("delay-ms", default: 10))
    guard CoalescingCase.variants.contains(arguments.variant) else {
      throw SuiteError.unknownVariant("coalescing", arguments.variant)
    }
    let server = try LoopbackServer { _, response in
      try await Task.sleep(for: delay)
      try await response.send(headers: ["Content-Type": "application/json"], body: MoviePage.body)
    }
    defer { server.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.coalescesRequests = arguments.variant == "on"
    // Over URLSession, as BENCHMARKS.md measured it (on Linux the default is CurlTransport).
    let client = HTTPClient(
      baseURL: server.baseURL, configuration: configuration, transport: URLSessionTransport())
    let burst: @Sendable (Int) async throws -> Int = { _ in
      try await Load.run(requests: callers, inFlight: callers) { _ in
        try await client.send(Request<MoviePage>(path: "movie/popular")).results.count
      }
    }

    _ = try await burst(0)
    let before = server.requestCount
    // The server's connection threads end during the bursts; see `Meter.measure`.
    let sample = try await Meter.measure(countingAllocations: false) {
      _ = try await Load.run(requests: bursts, inFlight: 1, burst)
    }
    Report(
      benchmark: "coalescing", variant: arguments.variant, units: bursts, unit: "burst",
      sample: sample,
      extra: ["server_requests": server.requestCount - before, "callers": callers]
    ).print()
  }
}
