import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// A hostile server's answer: a head, `first`, then `unit` over and over (8 GiB in all, which
/// no test should take in), and whether the client let it go before its end.
///
/// Why so much: URLSession on Linux goes on reading for a while after its task is cancelled
/// (PlatformNotes), dropped by Courier as it comes: measured on this loopback under a load of
/// 10 on 2 cores at 17 MB to 300 MB, over 0.1 to 1.2 s, and once all of a 1 GiB body in
/// 3.2 s, which made the event-stream limit test flaky on it (1 in 50 runs). A client that
/// takes the whole body in still fails, within the watchdog's limit.
struct EndlessBody: Sendable {
  let headers: HTTPHeaders
  let first: Data
  let unit: Data
  private let sentAll = Locked<Bool?>(nil)
  private let ended = Signal()

  init(headers: HTTPHeaders = [:], first: String, unit: String) {
    self.headers = headers
    self.first = Data(first.utf8)
    self.unit = Data(String(repeating: unit, count: 16 * 1024 / unit.utf8.count).utf8)
  }

  /// Sends the answer until it is all out or the client has gone.
  func send(_ response: LoopbackResponse) async throws {
    try await response.writeHead(headers: headers)  // chunked, no length
    do {
      try await response.write(first)
      for _ in 0..<(8 << 30 / unit.count) { try await response.write(unit) }
      sentAll.withLock { $0 = true }
    } catch {
      sentAll.withLock { $0 = false }
    }
    ended.fire()
  }

  /// Whether the client let the answer go before its end: waits (within the watchdog's limit)
  /// for the server to stop sending.
  func clientLetGo() async -> Bool {
    await watched { await ended.wait() } != nil && sentAll.withLock { $0 } == false
  }
}
