// Downloads one URL to a temporary file through a Courier client over CurlTransport, once to
// warm up and then ROUNDS times, printing each download's wall and CPU milliseconds, and at the
// end the process's peak resident memory (kB). Built against two commits of Courier, it
// compares how a download reaches the disk (BENCHMARKS.md, "Downloads reach the disk one way").
//
//   DownloadToDisk URL [ROUNDS]
import Courier
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count > 1, let url = URL(string: arguments[1]) else {
  print("usage: DownloadToDisk URL [ROUNDS]")
  exit(2)
}
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
let client = HTTPClient(baseURL: url.deletingLastPathComponent())
let destination = URL(fileURLWithPath: NSTemporaryDirectory())
  .appendingPathComponent("download-to-disk-\(getpid()).bin")
defer { try? FileManager.default.removeItem(at: destination) }

/// User and system CPU time of the process so far, in milliseconds.
func cpuMilliseconds() -> Double {
  var usage = rusage()
  #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
  #else
    getrusage(RUSAGE_SELF, &usage)
  #endif
  let seconds = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
  return seconds * 1000 + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000
}

let endpoint = Request<Data>(path: url.lastPathComponent)
_ = try await client.download(endpoint, to: destination).finished()
for _ in 0..<rounds {
  let cpu = cpuMilliseconds()
  let start = ContinuousClock.now
  _ = try await client.download(endpoint, to: destination).finished()
  let wall = (ContinuousClock.now - start) / .milliseconds(1)
  print(String(format: "%.1f %.1f", wall, cpuMilliseconds() - cpu))
}
if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
  let peak = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM") })
{
  print("peak", peak.split(separator: " ").dropFirst().first ?? "")
}
