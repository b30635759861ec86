import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// DESIGN.md's budget of lock acquisitions per GET (a default `send`: a buffered GET decoding
/// JSON, no middleware, no cache). Each count is of the locks of a client and transport made
/// for it alone (a ``LockCounter`` bound while they are made and used, see ``LockCount``), so
/// that the tests running alongside in this process add nothing to it, and it nothing to them.
@Suite("Lock acquisitions per GET", .timeLimit(.minutes(1)))
struct LockBudgetTests {
  static let base = URL(string: "http://api.test")!

  @Test(
    "the client takes a lock 3 times per GET: to join the shared call, to wait, to hand the answer over"
  )
  func clientShare() async throws {
    let perGET = try await LockCount.perGET(baseURL: Self.base, count: 20) {
      LockCount.Lockless()
    }
    #expect(perGET == 3)
  }

  @Test("over StubTransport, a GET takes 10 locks: the client's 3, the stub's 7")
  func stub() async throws {
    let perGET = try await LockCount.perGET(baseURL: Self.base, count: 20) { LockCount.stub() }
    #expect(perGET == 10)
  }

  #if canImport(FoundationNetworking)
    @Test(
      "over CurlTransport, a sequential GET takes 6 or 7 locks: the client's 3, the exchange's 2, the driver's 1 or 2 (which keeps the deadline)"
    )
    func curl() async throws {
      let server = try LockCount.server()
      defer { server.stop() }
      let perGET = try await LockCount.perGET(baseURL: server.baseURL, count: 50) {
        CurlTransport()
      }
      // The driver's lock is taken to send the request (the deadline goes in with it) and,
      // unless libcurl read the answer in that same turn, again when the driver's thread
      // wakes for it (the deadline comes out with the transfer): 6 or 7. (Now and then the
      // thread may wake once more, for a timer of libcurl's.)
      #expect(perGET >= 6 && perGET <= 7.2, "\(perGET) per GET")
    }
  #endif
}
