import BenchmarkFixtures
import Foundation

/// The decoding half of the floor: the served page (``MoviePage/body``, 3 KB) decoded with a
/// `JSONDecoder` `requests` times, one after another or `in-flight` at a time (tasks on every
/// core), as each client's GET variant decodes it. No network.
///
///   Suite decode alone [--requests 3000] [--in-flight 1] [--warmup 200]
enum DecodeCase {
  /// Runs the decoding and prints its report.
  static func run(_ arguments: Arguments) async throws {
    let requests = try arguments.int("requests", default: 3000)
    let inFlight = try arguments.int("in-flight", default: 1)
    let warmup = try arguments.int("warmup", default: 200)
    let body = MoviePage.body
    let decoder = JSONDecoder()
    let decode: Fetch = { _ in try Decoding.page.check(body, with: decoder) }
    _ = try await Load.run(requests: warmup, inFlight: inFlight, decode)
    var checked = 0
    let sample = try await Meter.measure {
      checked = try await Load.run(requests: requests, inFlight: inFlight, decode)
    }
    guard checked == requests * 20 else {
      throw SuiteError.unexpected("decoded \(checked) movies, expected \(requests * 20)")
    }
    Report(
      benchmark: "decode", variant: arguments.variant, units: requests, unit: "request",
      sample: sample
    ).print()
  }
}
