import BenchmarkFixtures
import Courier
import CourierTesting
import Foundation

// Chooses URLSessionTransport's default `maximumConnectionsPerHost`: throughput of 64
// requests in flight against a server that answers at once and one that takes 20 ms,
// for several connection limits, interleaved over rounds, medians printed.
//
//   Benchmarks/connections.sh        (starts nginx as the fast server, then runs this)
//
// The fast server is the URL given as the first argument (nginx serving a JSON page);
// without one it is a loopback server in this process, which on 2 cores is itself the
// bottleneck. The 20 ms server is always a loopback server: its handlers sleep.

let body = MoviePage.body

func throughput(of url: URL, connections: Int, requests: Int, inFlight: Int = 64) async throws
  -> Double
{
  let configuration = URLSessionTransport.defaultSessionConfiguration(
    maximumConnectionsPerHost: connections)
  let client = HTTPClient(
    baseURL: url, transport: URLSessionTransport(configuration: configuration))
  _ = try await client.send(Request<MoviePage>(path: ""))
  let start = ContinuousClock.now
  try await withThrowingTaskGroup(of: Void.self) { group in
    var started = 0
    func startOne() {
      started += 1
      group.addTask { _ = try await client.send(Request<MoviePage>(path: "")) }
    }
    for _ in 0..<inFlight { startOne() }
    while try await group.next() != nil, started < requests { startOne() }
  }
  return Double(requests) / ((ContinuousClock.now - start) / .seconds(1))
}

let immediate = try LoopbackServer { _, response in try await response.send(body: body) }
let fastURL =
  CommandLine.arguments.dropFirst().first.flatMap(URL.init(string:))
  ?? immediate.baseURL.appendingPathComponent("page")
let slow = try LoopbackServer { _, response in
  try await Task.sleep(for: .milliseconds(20))
  try await response.send(body: body)
}
defer {
  immediate.stop()
  slow.stop()
}

let limits = [6, 16, 32, 64]
var fast: [Int: [Double]] = [:]
var delayed: [Int: [Double]] = [:]
for _ in 0..<3 {
  for limit in limits {
    fast[limit, default: []].append(
      try await throughput(of: fastURL, connections: limit, requests: 3000))
    delayed[limit, default: []].append(
      try await throughput(
        of: slow.baseURL.appendingPathComponent("page"), connections: limit, requests: 640))
  }
}

func median(_ values: [Double]) -> Int { Int(values.sorted()[values.count / 2]) }
print("fast server: \(fastURL)")
print("| connections per host | fast server, req/s | 20 ms server, req/s |")
print("| ---: | ---: | ---: |")
for limit in limits {
  print("| \(limit) | \(median(fast[limit]!)) | \(median(delayed[limit]!)) |")
}
