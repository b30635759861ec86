import BenchmarkFixtures
import Courier
import CourierTesting
import Foundation

// What Courier's deadline and request coalescing cost per request, each on and off,
// interleaved over rounds, medians printed:
// - the in-memory pipeline (endpoint → URLRequest → stub transport → JSON decode), where
//   the deadline is the generic one (two tasks racing a sleep), 1 and 64 callers;
// - URLSessionTransport, where it is the transport's shared DeadlineTimer, sequential
//   requests against nginx (its URL as the argument) or an in-process loopback server.
//
//   swift run -c release --package-path Benchmarks PipelineCost [http://127.0.0.1:PORT/page.json]

let body = MoviePage.body
let stub = StubTransport().fallback { _ throws(HTTPError) in StubResponse(body: body) }

let server = try LoopbackServer { _, response in try await response.send(body: body) }
defer { server.stop() }

func microseconds(
  timeout: Duration?, callers: Int, requests: Int, transport: any HTTPTransport = stub,
  baseURL: URL = URL(string: "https://api.test/3")!, coalescing: Bool = true
) async throws -> Double {
  var configuration = HTTPClient.Configuration()
  configuration.timeout = timeout
  configuration.coalescesRequests = coalescing
  let client = HTTPClient(baseURL: baseURL, configuration: configuration, transport: transport)
  let perCaller = requests / callers
  let start = ContinuousClock.now
  try await withThrowingTaskGroup(of: Void.self) { group in
    for _ in 0..<callers {
      group.addTask {
        for page in 0..<perCaller {
          // A base URL that names a file (nginx's page.json) is the whole URL.
          let path = baseURL.pathExtension.isEmpty ? "movie/popular" : ""
          _ = try await client.send(Request<MoviePage>(path: path, query: ["page": page]))
        }
      }
    }
    try await group.waitForAll()
  }
  return (ContinuousClock.now - start) / .microseconds(1) / Double(perCaller * callers)
}

let nginx = CommandLine.arguments.dropFirst().first.flatMap(URL.init(string:))
var results: [String: [Double]] = [:]
for _ in 0..<5 {
  for callers in [1, 64] {
    for timeout in [nil, Duration.seconds(60)] {
      for coalescing in [false, true] {
        let key =
          "stub, \(callers) caller(s), timeout \(timeout.map { "\($0)" } ?? "none"), coalescing \(coalescing)"
        results[key, default: []].append(
          try await microseconds(
            timeout: timeout, callers: callers, requests: 20_000, coalescing: coalescing))
      }
    }
  }
  for timeout in [nil, Duration.seconds(60)] {
    for coalescing in [false, true] {
      let key =
        "URLSession + \(nginx == nil ? "loopback" : "nginx"), 1 caller, timeout \(timeout.map { "\($0)" } ?? "none"), coalescing \(coalescing)"
      results[key, default: []].append(
        try await microseconds(
          timeout: timeout, callers: 1, requests: 2000, transport: URLSessionTransport(),
          baseURL: nginx ?? server.baseURL, coalescing: coalescing))
    }
  }
}
print("| pipeline | µs per request (median of 5) |")
print("| --- | ---: |")
for key in results.keys.sorted() {
  let sorted = results[key]!.sorted()
  print("| \(key) | \(String(format: "%.1f", sorted[sorted.count / 2])) |")
}
