import BenchmarkFixtures
import Courier
import CourierTesting
import Foundation

// What Courier's own deadline costs per request, with no timeout and with one, interleaved
// over rounds, medians printed:
// - the in-memory pipeline (endpoint → URLRequest → stub transport → JSON decode), where
//   the deadline is the generic one (a task group racing a sleep), 1 and 64 callers;
// - URLSessionTransport against a loopback server, where it is the transport's shared
//   DeadlineTimer, sequential requests.
//
//   swift run -c release --package-path Benchmarks DeadlineCost

let body = MoviePage.body
let stub = StubTransport().fallback { _ throws(HTTPError) in StubResponse(body: body) }

let server = try LoopbackServer { _, response in try await response.send(body: body) }
defer { server.stop() }

func microseconds(
  timeout: Duration?, callers: Int, requests: Int, transport: any HTTPTransport = stub,
  baseURL: URL = URL(string: "https://api.test/3")!
) async throws -> Double {
  var configuration = HTTPClient.Configuration()
  configuration.timeout = timeout
  let client = HTTPClient(baseURL: baseURL, configuration: configuration, transport: transport)
  let perCaller = requests / callers
  let start = ContinuousClock.now
  try await withThrowingTaskGroup(of: Void.self) { group in
    for _ in 0..<callers {
      group.addTask {
        for page in 0..<perCaller {
          _ = try await client.send(
            Request<MoviePage>(path: "movie/popular", query: ["page": page]))
        }
      }
    }
    try await group.waitForAll()
  }
  return (ContinuousClock.now - start) / .microseconds(1) / Double(perCaller * callers)
}

var results: [String: [Double]] = [:]
for _ in 0..<5 {
  for callers in [1, 64] {
    for timeout in [nil, Duration.seconds(60)] {
      let key = "stub, \(callers) caller(s), timeout \(timeout.map { "\($0)" } ?? "none")"
      results[key, default: []].append(
        try await microseconds(timeout: timeout, callers: callers, requests: 20_000))
    }
  }
  for timeout in [nil, Duration.seconds(60)] {
    let key = "URLSession + loopback, 1 caller, timeout \(timeout.map { "\($0)" } ?? "none")"
    results[key, default: []].append(
      try await microseconds(
        timeout: timeout, callers: 1, requests: 2000, transport: URLSessionTransport(),
        baseURL: server.baseURL))
  }
}
print("| pipeline | µs per request (median of 5) |")
print("| --- | ---: |")
for key in results.keys.sorted() {
  let sorted = results[key]!.sorted()
  print("| \(key) | \(String(format: "%.1f", sorted[sorted.count / 2])) |")
}
