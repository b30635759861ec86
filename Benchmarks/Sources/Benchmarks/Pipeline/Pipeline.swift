import Benchmark
import BenchmarkFixtures
import Courier
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The in-memory pipeline: endpoint → URLRequest → middleware → transport → JSON decode of the
// ~3 KB fixture page, with no network. Each measured iteration is 1,000 `send`s split over
// 1 or 64 concurrent callers (tasks) of one client; run.sh divides by 1,000. With no
// serialisation, 64 callers on 2 cores take about half the wall time per request of 1 caller
// for the same CPU time per request.
//
//   swift package --package-path Benchmarks benchmark --target Pipeline

/// The requests of one measured iteration.
private let requestsPerIteration = 1000

/// Runs `work` for every request of an iteration, split over `callers` concurrent tasks.
private func runAll(callers: Int, _ work: @escaping @Sendable (Int) async throws -> Void)
  async throws
{
  try await withThrowingTaskGroup(of: Void.self) { group in
    for caller in 0..<callers {
      group.addTask {
        for index in stride(from: caller, to: requestsPerIteration, by: callers) {
          try await work(index)
        }
      }
    }
    try await group.waitForAll()
  }
}

/// Every request that a benchmark sends: distinct queries, so no two are ever shared.
private func sendAll(_ client: HTTPClient, callers: Int) async throws {
  try await runAll(callers: callers) { index in
    blackHole(
      try await client.send(Request<MoviePage>(path: "movie/popular", query: ["page": index])))
  }
}

/// The reference: only the JSON decoding that every request above includes, on the same
/// number of tasks; its speed-up from 1 to 64 callers is what the machine allows right now.
private func decodeAll(callers: Int) async throws {
  let decoder = JSONDecoder()
  try await runAll(callers: callers) { _ in
    blackHole(try decoder.decode(MoviePage.self, from: MoviePage.body))
  }
}

/// A transport that answers every request with the fixture page and records nothing (unlike
/// `StubTransport`, which appends every request to a locked array).
private struct CannedTransport: HTTPTransport {
  func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
    -> TransportResponse
  {
    TransportResponse(
      head: HTTPResponse(
        status: 200, headers: ["Content-Type": "application/json"], url: request.head.url),
      body: TransportResponseBody(MoviePage.body))
  }
}

/// A client for one iteration; made before the measurement starts.
private func client(
  middlewares: Int, transport: String, timeout: Duration? = nil
) -> HTTPClient {
  var configuration = HTTPClient.Configuration()
  configuration.timeout = timeout
  configuration.middleware = HeaderMiddleware.chain(of: middlewares)
  let baseURL = URL(string: "https://api.test/3")!
  if transport == "canned" {
    return HTTPClient(baseURL: baseURL, configuration: configuration, transport: CannedTransport())
  }
  let stub = StubTransport().fallback { _ throws(HTTPError) in
    StubResponse(headers: ["Content-Type": "application/json"], body: MoviePage.body)
  }
  return HTTPClient(baseURL: baseURL, configuration: configuration, transport: stub)
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal],
    timeUnits: .microseconds,
    warmupIterations: 3,
    maxDuration: .seconds(benchmarkSeconds(default: 2)),
    maxIterations: 200
  )

  // name, transport, middlewares, timeout
  var cases: [(String, String, Int, Duration?)] = [0, 1, 3].map {
    ("StubTransport, \($0) middleware", "stub", $0, nil)
  }
  cases.append(("CannedTransport, 0 middleware", "canned", 0, nil))
  cases.append(("StubTransport, 0 middleware, 60 s timeout", "stub", 0, .seconds(60)))
  for callers in [1, 64] {
    Benchmark("JSONDecoder alone (reference), \(callers) caller\(callers == 1 ? "" : "s")") {
      _ in try await decodeAll(callers: callers)
    }
  }
  for (name, transport, middlewares, timeout) in cases {
    for callers in [1, 64] {
      Benchmark("\(name), \(callers) caller\(callers == 1 ? "" : "s")") { benchmark in
        let client = client(middlewares: middlewares, transport: transport, timeout: timeout)
        benchmark.startMeasurement()
        try await sendAll(client, callers: callers)
        benchmark.stopMeasurement()
      }
    }
  }
}
