import BenchmarkFixtures
import Courier
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// Courier against a raw URLSession completion-handler loop (same session configuration,
// fresh JSONDecoder per request as a naive client would), sequential requests, interleaved
// over 5 rounds: the median ratio of Courier's time per request to raw's, per variant.
//
//   swift run -c release --package-path Benchmarks VersusRaw [http://127.0.0.1:PORT/page.json]
//
// Without a URL the server is a loopback server in this process (it then shares the 2 cores).

let server = try LoopbackServer { _, response in try await response.send(body: MoviePage.body) }
defer { server.stop() }
let url =
  CommandLine.arguments.dropFirst().first.flatMap(URL.init(string:))
  ?? server.baseURL.appendingPathComponent("page.json")
let session = URLSession(configuration: URLSessionTransport.defaultSessionConfiguration())

func raw() async throws -> MoviePage {
  try await withCheckedThrowingContinuation { continuation in
    session.dataTask(with: URLRequest(url: url)) { data, _, error in
      guard let data, error == nil else {
        continuation.resume(throwing: error ?? URLError(.badServerResponse))
        return
      }
      continuation.resume(with: Result { try JSONDecoder().decode(MoviePage.self, from: data) })
    }.resume()
  }
}

func client(coalescing: Bool, ownSession: Bool) -> HTTPClient {
  var configuration = HTTPClient.Configuration()
  configuration.coalescesRequests = coalescing
  let transport = ownSession ? URLSessionTransport() : URLSessionTransport(session: session)
  return HTTPClient(baseURL: url, configuration: configuration, transport: transport)
}

let variants: [(String, HTTPClient)] = [
  (
    "default (own session: redirect delegate; coalescing)",
    client(coalescing: true, ownSession: true)
  ),
  ("own session, no coalescing", client(coalescing: false, ownSession: true)),
  (
    "shared session (completion handlers), no coalescing",
    client(coalescing: false, ownSession: false)
  ),
]
let requests = 2000
var ratios: [String: [Double]] = [:]
for _ in 0..<5 {
  var start = ContinuousClock.now
  for _ in 0..<requests { _ = try await raw() }
  let rawTime = ContinuousClock.now - start
  for (name, client) in variants {
    start = ContinuousClock.now
    for _ in 0..<requests { _ = try await client.send(Request<MoviePage>(path: "")) }
    ratios[name, default: []].append((ContinuousClock.now - start) / rawTime)
  }
}
print("server: \(url); \(requests) sequential requests per variant and round")
print("| Courier variant | time / raw URLSession (median of 5) | all rounds |")
print("| --- | ---: | --- |")
for (name, _) in variants {
  let sorted = ratios[name]!.sorted()
  let all = sorted.map { String(format: "%.2f", $0) }.joined(separator: " ")
  print("| \(name) | \(String(format: "%.3f", sorted[2])) | \(all) |")
}
