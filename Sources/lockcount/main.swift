import Courier
import CourierTestSupport
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// Prints how many times Courier's locks are taken per default `send` (a buffered GET decoding
// JSON), over each transport, N sequential GETs after a warm-up: the budget of DESIGN.md is 8.
//
//   swift run lockcount [N]      (N: 1,000 by default)
//
// Only the locks of the client and transport made for the count are counted (a LockCounter
// bound while they are made and used): not the loopback server's, made before.

let count = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 1000
let base = URL(string: "http://api.test")!

func report(_ name: String, _ perGET: Double) {
  print(name.padding(toLength: 44, withPad: " ", startingAt: 0), String(format: "%6.2f", perGET))
}

print("lock acquisitions per GET (\(count) sequential GETs)")
report(
  "client alone (a transport without locks)",
  try await LockCount.perGET(baseURL: base, count: count) { LockCount.Lockless() })
report(
  "StubTransport",
  try await LockCount.perGET(baseURL: base, count: count) { LockCount.stub() })
let server = try LockCount.server()
#if canImport(FoundationNetworking)
  report(
    "CurlTransport, loopback server",
    try await LockCount.perGET(baseURL: server.baseURL, count: count) { CurlTransport() })
#endif
report(
  "URLSessionTransport, loopback server",
  try await LockCount.perGET(baseURL: server.baseURL, count: count) { URLSessionTransport() })
server.stop()
