import BenchmarkFixtures
import Courier
import Foundation
import Logging
import NIOCore
import WSClient

#if canImport(Glibc)
  import Glibc
#endif

// Many WebSocket connections at once through one client: Courier (HTTPClient over one
// CurlTransport) or hummingbird-project's WSClient (on NIO's singleton event loops), to the
// echo server (WebSocketEchoServer). One client per process, so that the process's threads,
// descriptors and resident memory are the client's. Opens N connections (at most 128 opening
// at once), holds them idle, runs one round of echoes across all of them (every connection
// sends a message and waits for its echo, all at once), closes them all at once, and prints one JSON
// line: the counts before, while open and after, and the times.
//
//   WebSocketConnections courier|wsclient ws://127.0.0.1:PORT [N (10000)]
//
// With ROUNDS=R (Courier only), the whole open–echo–close cycle runs R times and the resident
// memory after each round's close is reported too: memory freed but kept by malloc is used
// again by the next round, and a leak grows round by round.
//
// Run under `ulimit -n 16384` (Benchmarks/websocket-connections.sh does).

let arguments = CommandLine.arguments
guard arguments.count >= 3, ["courier", "wsclient"].contains(arguments[1]),
  let url = URL(string: arguments[2])
else {
  FileHandle.standardError.write(
    Data("usage: WebSocketConnections courier|wsclient ws://host:port [count]\n".utf8))
  exit(2)
}
let count = arguments.count > 3 ? Int(arguments[3]) ?? 10_000 : 10_000

/// The process's threads and open descriptors, and its resident memory.
struct Counts: Encodable {
  var threads: Int
  var descriptors: Int
  var residentKiB: Int

  static var now: Counts {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return Counts(
      threads: tasks.count, descriptors: descriptors.count - 1,
      residentKiB: ProcessMemory.residentKiB)
  }

  /// The resident memory once glibc's malloc has given what is free back to the system
  /// (`malloc_trim(0)`): memory freed but kept by malloc is resident, though no longer used.
  static var trimmedResidentKiB: Int {
    typealias Trim = @convention(c) (Int) -> Int32
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
      _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
    return ProcessMemory.residentKiB
  }
}

/// Counts arrivals and lets waiters through once `target` have arrived.
actor Barrier {
  private var arrived = 0
  private var waiters: [CheckedContinuation<Void, Never>] = []
  private let target: Int

  init(_ target: Int) { self.target = target }

  func arrive() {
    arrived += 1
    if arrived >= target {
      for waiter in waiters { waiter.resume() }
      waiters = []
    }
  }

  func wait() async {
    guard arrived < target else { return }
    await withCheckedContinuation { waiters.append($0) }
  }
}

/// At most so many at once.
actor Permits {
  private var free: Int
  private var waiters: [CheckedContinuation<Void, Never>] = []

  init(_ count: Int) { free = count }

  func acquire() async {
    guard free == 0 else {
      free -= 1
      return
    }
    await withCheckedContinuation { waiters.append($0) }
  }

  func release() {
    if waiters.isEmpty { free += 1 } else { waiters.removeFirst().resume() }
  }
}

/// A gate opened once, for every waiter.
actor Gate {
  private var open = false
  private var waiters: [CheckedContinuation<Void, Never>] = []

  func release() {
    open = true
    for waiter in waiters { waiter.resume() }
    waiters = []
  }

  func wait() async {
    guard !open else { return }
    await withCheckedContinuation { waiters.append($0) }
  }
}

struct Report: Encodable {
  var client: String
  var connections: Int
  var before: Counts
  var open: Counts
  var afterEchoes: Counts
  var afterClose: Counts
  var trimmedResidentKiB: Int
  var openSeconds: Double
  var echoRoundSeconds: Double
  var closeSeconds: Double
  var echoed: Int
  /// Resident memory after each round's close, with ROUNDS > 1.
  var residentKiBAfterRounds: [Int] = []
}

func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Runs `body` for `0..<count` with at most `width` at once.
func spread(_ count: Int, width: Int, _ body: @escaping @Sendable (Int) async throws -> Void)
  async throws
{
  try await withThrowingTaskGroup(of: Void.self) { group in
    var next = 0
    while next < min(width, count) {
      let index = next
      group.addTask { try await body(index) }
      next += 1
    }
    while try await group.next() != nil, next < count {
      let index = next
      group.addTask { try await body(index) }
      next += 1
    }
    try await group.waitForAll()
  }
}

// MARK: - Courier

final class Sockets: @unchecked Sendable {
  // `@unchecked Sendable`: each slot is written by one task, read after they have all ended.
  var sockets: [Courier.WebSocket?]
  init(_ count: Int) { sockets = Array(repeating: nil, count: count) }
}

func courier() async throws -> Report {
  let client = HTTPClient(baseURL: url, transport: CurlTransport())
  // PINGS=1: the default settings, a ping every 30 seconds (none comes during a run).
  let settings =
    ProcessInfo.processInfo.environment["PINGS"] == "1"
    ? WebSocket.Settings() : WebSocket.Settings(pingInterval: nil)
  // One connection first: libcurl loaded, the task pool's threads started.
  let first = try await client.webSocket(Request<Data>(path: "warm"), settings: settings)
  await first.close()
  let before = Counts.now
  var report = Report(
    client: "Courier", connections: 0, before: before, open: before, afterEchoes: before,
    afterClose: before, trimmedResidentKiB: 0, openSeconds: 0, echoRoundSeconds: 0,
    closeSeconds: 0, echoed: 0)
  // The sockets live in here: they are gone when the memory after closing is read.
  func run() async throws {
    let start = ContinuousClock.now
    let opened = Sockets(count)
    try await spread(count, width: 128) { index in
      opened.sockets[index] = try await client.webSocket(
        Request<Data>(path: "echo"), settings: settings)
    }
    report.openSeconds = seconds(.now - start)
    let sockets = opened.sockets.compactMap { $0 }
    opened.sockets = []
    report.connections = sockets.count
    report.open = Counts.now
    let roundStart = ContinuousClock.now
    report.echoed = try await withThrowingTaskGroup(of: Bool.self) { group in
      for (index, socket) in sockets.enumerated() {
        group.addTask {
          try await socket.send("echo \(index)")
          var messages = socket.messages.makeAsyncIterator()
          return try await messages.next() == .text("echo \(index)")
        }
      }
      return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    report.echoRoundSeconds = seconds(.now - roundStart)
    report.afterEchoes = Counts.now
    let closeStart = ContinuousClock.now
    // All at once, as WSClient's handlers are released (its close is timed that way too).
    try await spread(sockets.count, width: sockets.count) { index in await sockets[index].close() }
    report.closeSeconds = seconds(.now - closeStart)
  }
  let rounds = max(1, Int(ProcessInfo.processInfo.environment["ROUNDS"] ?? "") ?? 1)
  for _ in 1...rounds {
    try await run()
    try await Task.sleep(for: .milliseconds(500))
    if rounds > 1 { report.residentKiBAfterRounds.append(ProcessMemory.residentKiB) }
  }
  report.afterClose = .now
  report.trimmedResidentKiB = Counts.trimmedResidentKiB
  return report
}

// MARK: - WSClient

func wsclient() async throws -> Report {
  let logger = Logger(label: "wsclient-bench", factory: { _ in SwiftLogNoOpLogHandler() })
  let address = url.appendingPathComponent("echo").absoluteString
  _ = try await WebSocketClient.connect(url: address, logger: logger) { _, _, _ in }
  let before = Counts.now
  let opened = Barrier(count)
  let echoed = Barrier(count)
  let closed = Barrier(count)
  let round = Gate()
  let closing = Gate()
  let good = Locked(0)
  let opening = Permits(128)
  let start = ContinuousClock.now
  // Each connection is a task whose handler holds it open until `closing` opens; at most 128
  // open at once, as Courier's do.
  let connections = Task {
    try await spread(count, width: count) { index in
      await opening.acquire()
      _ = try await WebSocketClient.connect(url: address, logger: logger) {
        inbound, outbound, _ in
        await opening.release()
        await opened.arrive()
        await round.wait()
        try await outbound.write(.text("echo \(index)"))
        var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
        if case .text(let text) = try await messages.next(), text == "echo \(index)" {
          good.withLock { $0 += 1 }
        }
        await echoed.arrive()
        await closing.wait()
      }
      await closed.arrive()
    }
  }
  await opened.wait()
  let openSeconds = seconds(.now - start)
  let open = Counts.now
  let roundStart = ContinuousClock.now
  await round.release()
  await echoed.wait()
  let echoRoundSeconds = seconds(.now - roundStart)
  let afterEchoes = Counts.now
  let closeStart = ContinuousClock.now
  await closing.release()
  await closed.wait()
  try await connections.value
  let closeSeconds = seconds(.now - closeStart)
  try await Task.sleep(for: .milliseconds(500))
  return Report(
    client: "WSClient", connections: count, before: before, open: open, afterEchoes: afterEchoes,
    afterClose: .now, trimmedResidentKiB: Counts.trimmedResidentKiB, openSeconds: openSeconds,
    echoRoundSeconds: echoRoundSeconds, closeSeconds: closeSeconds, echoed: good.withLock { $0 })
}

/// A value behind a lock (the benchmark's own: Courier's is internal).
final class Locked<Value: Sendable>: @unchecked Sendable {
  private var value: Value
  private let lock = NSLock()
  init(_ value: Value) { self.value = value }
  func withLock<T>(_ body: (inout Value) -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body(&value)
  }
}

let report = try await arguments[1] == "courier" ? courier() : wsclient()
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
print(String(decoding: try encoder.encode(report), as: UTF8.self))
