import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `TransportClock.within`: a wait before an exchange starts (gathering a streamed body) is
/// bounded by the exchange's deadline and by the caller's cancellation, however the work
/// behaves, on a manual clock.
@Suite("Work bounded by a deadline", .timeLimit(.minutes(1)))
struct WithinDeadlineTests {
  /// Work that returns `value` once `gate` opens, and ignores cancellation meanwhile.
  static func stubborn(_ gate: Gate, _ value: Int) -> @Sendable () async throws(HTTPError) -> Int {
    {
      await gate.wait()
      return value
    }
  }

  /// Opens once, whatever happens to the tasks waiting on it.
  final class Gate: Sendable {
    private let outcome = FirstOutcome<Void>()
    func wait() async { await outcome.value() }
    func open() { outcome.finish(()) }
  }

  @Test("work that ends before the deadline gives its value")
  func workFirst() async throws {
    let clock = ManualClock()
    let value = try await clock.within(
      clock.now + .seconds(10), discarding: { _ in }, doing: { () throws(HTTPError) in 7 })
    #expect(value == 7)
  }

  @Test("work that ignores cancellation does not hold the caller past the deadline")
  func deadlineFirst() async throws {
    let clock = ManualClock()
    let gate = Gate()
    let discarded = FirstOutcome<Int>()
    let deadline = clock.now + .seconds(10)
    let call = Task { () async throws(HTTPError) -> Int in
      try await clock.within(
        deadline, discarding: { discarded.finish($0) }, doing: Self.stubborn(gate, 7))
    }
    await clock.sleepers(atLeast: 1)  // the deadline's wait
    clock.advance(by: .seconds(10))
    let outcome = await watched { await call.result }
    #expect(throws: HTTPError.timedOut) { try outcome?.get() }
    // The work ends later: what it made is handed to `discard`, not lost.
    gate.open()
    #expect(await watched { await discarded.value() } == 7)
  }

  @Test("a caller cancelled while stubborn work runs leaves at once with cancelled")
  func cancelledFirst() async throws {
    let clock = ManualClock()
    let gate = Gate()
    defer { gate.open() }
    let call = Task { () async throws(HTTPError) -> Int in
      try await clock.within(
        clock.now + .seconds(3600), discarding: { _ in }, doing: Self.stubborn(gate, 7))
    }
    await clock.sleepers(atLeast: 1)
    call.cancel()
    let outcome = await watched { await call.result }
    #expect(throws: HTTPError.cancelled) { try outcome?.get() }
  }

  @Test("a failure of the work before the deadline is thrown as it is")
  func workFails() async throws {
    let clock = ManualClock()
    let outcome = await Result { () async throws(HTTPError) -> Int in
      try await clock.within(
        clock.now + .seconds(10), discarding: { _ in },
        doing: { () throws(HTTPError) -> Int in throw .invalidRequest(reason: "bad body") })
    }
    #expect(throws: HTTPError.invalidRequest(reason: "bad body")) { try outcome.get() }
  }
}
