import BenchmarkFixtures
import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// One variant, N requests, for callgrind / perf / getrusage:
//
//   .build/release/Profile MODE N INFLIGHT URL
//
// MODE: rawch (completion handler, Courier's session configuration), rawdel (delegate-driven
// task, minimal delegate), transport (URLSessionTransport.send, no client), courier (a client
// with every default but its transport, URLSessionTransport), courier-nc (no coalescing), build
// (request building only, no network).
// Prints wall and CPU (getrusage user+sys) per request, after one warm-up request.

let args = CommandLine.arguments
let mode = args[1]
let n = Int(args[2])!
let inFlight = Int(args[3])!
let url = URL(string: args[4])!

let configuration = URLSessionTransport.defaultSessionConfiguration()
let chSession = URLSession(configuration: configuration)

final class MinimalDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  struct Pending {
    var continuation: CheckedContinuation<Data, any Error>
    var data = Data()
  }
  let lock = NSLock()
  var pending: [Int: Pending] = [:]

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    lock.lock()
    pending[dataTask.taskIdentifier]?.data.append(data)
    lock.unlock()
  }
  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    lock.lock()
    let entry = pending.removeValue(forKey: task.taskIdentifier)
    lock.unlock()
    if let error {
      entry?.continuation.resume(throwing: error)
    } else {
      entry?.continuation.resume(returning: entry!.data)
    }
  }
}
let minimal = MinimalDelegate()
let delSession = URLSession(
  configuration: URLSessionTransport.defaultSessionConfiguration(),
  delegate: minimal, delegateQueue: nil)

/// Distinct URLs when requests run concurrently, so that Courier coalesces nothing.
func target(_ i: Int) -> URL {
  inFlight <= 1 ? url : URL(string: url.absoluteString + "?n=\(i)")!
}
func query(_ i: Int) -> Query { inFlight <= 1 ? Query() : ["n": i] }

func rawCH(_ i: Int) async throws -> MoviePage {
  try await withCheckedThrowingContinuation { continuation in
    chSession.dataTask(with: URLRequest(url: target(i))) { data, _, error in
      guard let data, error == nil else {
        continuation.resume(throwing: error ?? URLError(.badServerResponse))
        return
      }
      continuation.resume(with: Result { try JSONDecoder().decode(MoviePage.self, from: data) })
    }.resume()
  }
}

func rawDel(_ i: Int) async throws -> MoviePage {
  let data: Data = try await withCheckedThrowingContinuation { continuation in
    let task = delSession.dataTask(with: URLRequest(url: target(i)))
    minimal.lock.lock()
    minimal.pending[task.taskIdentifier] = .init(continuation: continuation)
    minimal.lock.unlock()
    task.resume()
  }
  return try JSONDecoder().decode(MoviePage.self, from: data)
}

let transport = URLSessionTransport()
func viaTransport(_ i: Int) async throws -> MoviePage {
  let response = try await transport.send(URLRequest(url: target(i)))
  return try JSONDecoder().decode(MoviePage.self, from: response.body)
}

// Over URLSession, the baseline's session (on Linux a client given no transport gets
// CurlTransport).
let client = HTTPClient(baseURL: url, transport: URLSessionTransport())
var ncConfiguration = HTTPClient.Configuration()
ncConfiguration.coalescesRequests = false
let ncClient = HTTPClient(
  baseURL: url, configuration: ncConfiguration, transport: URLSessionTransport())

func one(_ i: Int = 0) async throws {
  switch mode {
  case "rawch": _ = try await rawCH(i)
  case "rawdel": _ = try await rawDel(i)
  case "transport": _ = try await viaTransport(i)
  case "courier": _ = try await client.send(Request<MoviePage>(path: "", query: query(i)))
  case "courier-nc": _ = try await ncClient.send(Request<MoviePage>(path: "", query: query(i)))
  case "build": _ = try client.urlRequest(for: Request<MoviePage>(path: "", query: query(i)))
  default: fatalError("unknown mode \(mode)")
  }
}

/// Voluntary context switches so far (threads blocking: the hops between threads).
func voluntarySwitches() -> Int {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return usage.ru_nvcsw
}

func cpuSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
    + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func measure() async throws {
  try await one()
  let cpu0 = cpuSeconds()
  let switches0 = voluntarySwitches()
  let start = ContinuousClock.now
  if inFlight <= 1 {
    for i in 0..<n { try await one(i) }
  } else {
    try await withThrowingTaskGroup(of: Void.self) { group in
      var started = 0
      for _ in 0..<min(inFlight, n) {
        started += 1
        group.addTask { [started] in try await one(started) }
      }
      while try await group.next() != nil, started < n {
        started += 1
        group.addTask { [started] in try await one(started) }
      }
    }
  }
  let wall = (ContinuousClock.now - start) / .microseconds(1)
  let cpu = (cpuSeconds() - cpu0) * 1e6
  let switches = Double(voluntarySwitches() - switches0) / Double(n)
  print(
    "\(mode) n=\(n) inflight=\(inFlight) wall/req=\(String(format: "%.2f", wall / Double(n)))us cpu/req=\(String(format: "%.2f", cpu / Double(n)))us vcsw/req=\(String(format: "%.2f", switches))"
  )
}

// A synchronous main waiting on a semaphore: an async main parks the main thread in
// dispatch_main, which valgrind 3.19 crashes on.
let done = DispatchSemaphore(value: 0)
Task.detached {
  do { try await measure() } catch { print("failed: \(error)") }
  done.signal()
}
done.wait()
