import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// A hostile server's answer: a head, `first`, then `unit` over and over (1 GiB in all, which
/// no test should take in), and whether the client let it go before its end.
///
/// Why so much: URLSession on Linux goes on reading for a while after its task is cancelled
/// (PlatformNotes), measured at up to 58 MB on this loopback, dropped by Courier as it comes;
/// with 64 MB in all, its client was sometimes still reading when the server had sent it all,
/// though it had let the body go. A client that takes the whole body in still fails, within
/// seconds.
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
      for _ in 0..<(1024 * 1024 * 1024 / unit.count) { try await response.write(unit) }
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
