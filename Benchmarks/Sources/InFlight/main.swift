import BenchmarkFixtures
import Courier
import CourierTesting
import Foundation

// Requests per second through one client at 1, 8 and 64 requests in flight (a task group
// keeping that many running), medians of 5 interleaved rounds with min and max.
//
//   swift run -c release --package-path Benchmarks InFlight [http://127.0.0.1:PORT/page.json]
//
// Give nginx's URL (Benchmarks/connections.sh shows how to start it); without one the
// server is a loopback server in this process, sharing the 2 cores with the client.

let server = try LoopbackServer { _, response in try await response.send(body: MoviePage.body) }
defer { server.stop() }
let url =
  CommandLine.arguments.dropFirst().first.flatMap(URL.init(string:))
  ?? server.baseURL.appendingPathComponent("page.json")
// Over URLSession, as BENCHMARKS.md measured it (on Linux the default is CurlTransport).
let client = HTTPClient(baseURL: url, transport: URLSessionTransport())

func requestsPerSecond(inFlight: Int, total: Int) async throws -> Double {
  let start = ContinuousClock.now
  try await withThrowingTaskGroup(of: Void.self) { group in
    var started = 0
    func startOne() {
      started += 1
      let query: Query = ["n": started]  // distinct URLs: no request is shared
      group.addTask { _ = try await client.send(Request<MoviePage>(path: "", query: query)) }
    }
    for _ in 0..<inFlight { startOne() }
    while try await group.next() != nil, started < total { startOne() }
  }
  return Double(total) / ((ContinuousClock.now - start) / .seconds(1))
}

let levels = [1, 8, 64]
var rates: [Int: [Double]] = [:]
for _ in 0..<5 {
  for level in levels {
    rates[level, default: []].append(try await requestsPerSecond(inFlight: level, total: 3000))
  }
}
print("server: \(url)")
print("| in flight | req/s (median of 5) | min | max |")
print("| ---: | ---: | ---: | ---: |")
for level in levels {
  let sorted = rates[level]!.sorted()
  print("| \(level) | \(Int(sorted[2])) | \(Int(sorted[0])) | \(Int(sorted[4])) |")
}
