import Courier
import CourierTesting
import Foundation

// What holds of Courier's limits on this platform's URLSession, measured against a loopback
// server that misbehaves on purpose. README's Security and Streaming sections quote it.
//
//   swift run -c release --package-path Benchmarks Limits overrun [runs]
//     An endless body against a 1 MiB maximumResponseBytes: how soon the caller gets
//     responseTooLarge, how many bytes the server still writes after that, and whether the
//     connection is closed 2 s later.
//   swift run -c release --package-path Benchmarks Limits slow-reader [MiB]
//     A body of MiB (1,024 by default) read through bytes() with bufferSize 1 MiB by a
//     reader that stalls for 5 s after the first chunk: the process's peak memory growth.

/// Resident memory figures from /proc (Linux), in MiB.
enum Memory {
  static func resetPeak() {
    try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
  }
  static func field(_ name: String) -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
      let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
      return kilobytes / 1024
    }
    return 0
  }
}

/// Bytes a handler wrote, and whether its client has gone.
///
/// `@unchecked Sendable`: both fields are read and written only under `lock`.
final class WriteCount: @unchecked Sendable {
  private let lock = NSLock()
  private var bytes = 0
  private var gone = false
  func add(_ count: Int) { lock.withLock { bytes += count } }
  func close() { lock.withLock { gone = true } }
  var written: Int { lock.withLock { bytes } }
  var closed: Bool { lock.withLock { gone } }
}

func overrun(runs: Int) async throws {
  let limit = 1 << 20
  let block = Data(repeating: 0x61, count: 256 * 1024)
  for run in 1...runs {
    let count = WriteCount()
    let server = try LoopbackServer { _, response in
      try await response.writeHead()
      do {
        while true {
          try await response.write(block)
          count.add(block.count)
        }
      } catch {
        count.close()
      }
    }
    var configuration = HTTPClient.Configuration()
    configuration.maximumResponseBytes = limit
    // URLSession's limits are what this measures; on Linux the default would be CurlTransport.
    let client = HTTPClient(
      baseURL: server.baseURL, configuration: configuration, transport: URLSessionTransport())
    let start = ContinuousClock.now
    var outcome = "no error"
    do {
      _ = try await client.send(Request<Data>(path: "endless"))
    } catch {
      outcome = "\(error)".prefix(40).description
    }
    let answered = (ContinuousClock.now - start) / .milliseconds(1)
    let atError = count.written
    try await Task.sleep(for: .seconds(2))
    let after = count.written - atError
    print(
      "run \(run): answered in \(Int(answered)) ms "
        + "(\(outcome)); written after the error: \(after >> 20) MiB; connection "
        + (count.closed ? "closed" : "still open") + " 2 s later")
    server.stop()
  }
}

func slowReader(mebibytes: Int) async throws {
  let block = Data(repeating: 0x62, count: 1 << 20)
  let server = try LoopbackServer { _, response in
    try await response.writeHead(contentLength: mebibytes << 20)
    for _ in 0..<mebibytes { try await response.write(block) }
    try await response.finish()
  }
  defer { server.stop() }
  let client = HTTPClient(baseURL: server.baseURL, transport: URLSessionTransport())
  Memory.resetPeak()
  let before = Memory.field("VmRSS")
  let stream = try await client.bytes(
    Request<Data>(path: "big"), options: TransferOptions(bufferSize: 1 << 20))
  var received = 0
  var stalled = false
  for try await chunk in stream {
    received += chunk.count
    if !stalled {
      stalled = true
      try await Task.sleep(for: .seconds(5))
    }
  }
  let growth = Memory.field("VmHWM") - before
  print("read \(received >> 20) MiB; peak memory growth \(Int(growth)) MiB")
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "overrun": try await overrun(runs: arguments.dropFirst().first.flatMap(Int.init) ?? 6)
case "slow-reader":
  try await slowReader(mebibytes: arguments.dropFirst().first.flatMap(Int.init) ?? 1024)
default: print("usage: Limits overrun [runs] | Limits slow-reader [MiB]")
}
