import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The exchange every transport runs, with a transfer of the test's own (it records what it
/// is told) and a manual clock: the caller is answered exactly once (a checked continuation
/// traps on a second resume), the transfer is started and stopped as the machine decides,
/// and the deadline rules end it — with no socket and no waiting.
@Suite("TransportCall: one exchange, answered once, timed by its rules")
struct TransportCallTests {
  /// A transfer that records `begin`, `stop`, `discard` and the end.
  struct Recorder: ExchangeTransfer {
    let log = Locked<[String]>([])
    var entries: [String] { log.withLock { $0 } }
    func begin() { log.withLock { $0.append("begin") } }
    func stop() { log.withLock { $0.append("stop") } }
    func discard() { log.withLock { $0.append("discard") } }
    func exchangeEnded() { log.withLock { $0.append("ended") } }
  }

  let clock = ManualClock()

  func call(_ options: TransportOptions = TransportOptions()) -> TransportCall<Recorder> {
    TransportCall(options: options, timer: DeadlineTimer(clock: clock))
  }

  static let noContent = TransportResponse(HTTPResponse(status: 204))

  @Test("cancelled before start: answered with cancelled, and no transfer is made")
  func cancelBeforeStart() async {
    let call = call()
    call.end(with: .cancelled)
    let made = Locked(0)
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) {
        made.withLock { $0 += 1 }
        return Recorder()
      }
    }
    #expect(made.withLock { $0 } == 0)
    guard case .failure(.cancelled) = result else { return #expect(Bool(false), "\(result)") }
  }

  @Test("completed, then cancelled: the answer stands and nothing is stopped")
  func completeThenCancel() async {
    let call = call()
    let transfer = Recorder()
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { transfer }
      call.complete(.success(Self.noContent))
      call.end(with: .cancelled)
    }
    guard case .success(let response) = result else { return #expect(Bool(false), "\(result)") }
    #expect(response.head.status == 204)
    #expect(transfer.entries == ["begin", "ended"])
  }

  @Test(
    "cancelled while running: answered at once, the transfer stopped; the late completion is ignored"
  )
  func cancelThenLateCompletion() async {
    let call = call()
    let transfer = Recorder()
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { transfer }
      call.end(with: .cancelled)
    }
    call.complete(.failure(.transport(URLError(.cancelled))))
    guard case .failure(.cancelled) = result else { return #expect(Bool(false), "\(result)") }
    #expect(transfer.entries == ["begin", "ended", "stop"])
  }

  @Test("a streamed head answers the caller; the body's end, not the head, ends the exchange")
  func streamed() async throws {
    let call = call()
    let transfer = Recorder()
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { transfer }
      let writer = call.receivedHead(HTTPResponse(status: 200), bufferSize: 1024)
      try? writer?.write(Data("abc".utf8))
      #expect(transfer.entries == ["begin"])
      call.complete(.success(Self.noContent))
    }
    let body = try await result.get().body.collect()
    #expect(body == Data("abc".utf8))
    #expect(transfer.entries == ["begin", "ended"])
  }

  @Test(
    "a streamed response that ends while its transfer still sends: the body ends whole, the transfer is stopped"
  )
  func responseEndsFirst() async throws {
    let call = call()
    let transfer = Recorder()
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { transfer }
      let writer = call.receivedHead(HTTPResponse(status: 200), bufferSize: 1024)
      try? writer?.write(Data("abc".utf8))
      call.responseEndedFirst()
    }
    call.complete(.failure(.transport(URLError(.networkConnectionLost))))  // late: ignored
    let body = try await result.get().body.collect()
    #expect(body == Data("abc".utf8))
    #expect(transfer.entries == ["begin", "ended", "stop"])
  }

  @Test("the idle timeout: activity moves it on, silence for the whole of it ends the call")
  func idleTimeout() async {
    let start = clock.now
    let call = call(TransportOptions(idleTimeout: .seconds(100)))
    let transfer = Recorder()
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { transfer }
      // A byte after 60 s: at 100 s the call is not idle and names 160 s; then it is.
      clock.advance(by: .seconds(60))
      call.touch()
      #expect(call.timerFired(now: start + .seconds(100)) == start + .seconds(160))
      #expect(call.timerFired(now: start + .seconds(160)) == nil)
    }
    guard case .failure(.timedOut) = result else { return #expect(Bool(false), "\(result)") }
    #expect(transfer.entries == ["begin", "ended", "stop"])
  }

  @Test("a deadline ends the call when it passes, however active the transfer")
  func deadlineWins() async {
    let deadline = clock.now + .milliseconds(5)
    let call = call(TransportOptions(deadline: deadline, idleTimeout: .seconds(100)))
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { Recorder() }
      clock.advance(by: .milliseconds(4))
      call.touch()
      #expect(call.timerFired(now: deadline - .nanoseconds(1)) == deadline)
      #expect(call.timerFired(now: deadline) == nil)
    }
    guard case .failure(.timedOut) = result else { return #expect(Bool(false), "\(result)") }
  }

  @Test("the timer ends a call on its own when the clock passes its deadline")
  func timerEndsIt() async {
    let call = call(TransportOptions(deadline: clock.now + .seconds(30)))
    let clock = self.clock
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { Recorder() }
      Task {
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(30))
      }
    }
    guard case .failure(.timedOut) = result else { return #expect(Bool(false), "\(result)") }
  }

  @Test("paused for its reader, a transfer is not idle; resumed, its idle period starts afresh")
  func pausedForReader() async {
    let start = clock.now
    let call = call(TransportOptions(idleTimeout: .seconds(10)))
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { Recorder() }
      call.pausedForCaller()
      // Not idle however long the reader takes; looked at again an idle period later.
      #expect(call.timerFired(now: start + .seconds(3600)) == start + .seconds(3610))
      #expect(!call.isFinished)
      clock.advance(by: .seconds(3600))
      call.resumedByCaller()
      #expect(call.timerFired(now: start + .seconds(3605)) == start + .seconds(3610))
      call.end(with: .cancelled)
    }
    guard case .failure(.cancelled) = result else { return #expect(Bool(false), "\(result)") }
  }

  @Test("a transfer whose bytes the transport does not see is idle only when its count stands")
  func countedBytes() async {
    struct Counted: ExchangeTransfer {
      let count: Locked<Int64>
      var bytesMoved: Int64? { count.withLock { $0 } }
      func begin() {}
      func stop() {}
      func discard() {}
    }
    let start = clock.now
    let count = Locked<Int64>(0)
    let call = TransportCall<Counted>(
      options: TransportOptions(idleTimeout: .seconds(10)), timer: DeadlineTimer(clock: clock))
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { Counted(count: count) }
      count.withLock { $0 = 500 }
      // The count moved since the last look: the look itself counts as activity.
      #expect(call.timerFired(now: start + .seconds(10)) == start + .seconds(20))
      #expect(call.timerFired(now: start + .seconds(20)) == nil)
    }
    guard case .failure(.timedOut) = result else { return #expect(Bool(false), "\(result)") }
  }
  @Test(
    "started with a transfer made already, after the exchange ended: the transfer is discarded unstarted"
  )
  func endedBeforeStartWithTransfer() async {
    let call = call(TransportOptions(deadline: clock.now + .seconds(30)))
    call.end(with: .cancelled)
    let transfer = Recorder()
    let result = await withCheckedContinuation { continuation in
      call.start(continuation, transfer: transfer)
    }
    guard case .failure(.cancelled) = result else { return #expect(Bool(false), "\(result)") }
    #expect(transfer.entries == ["ended", "discard"])
  }

  @Test("a transfer that records its own activity: the timer reads it when it looks")
  func selfRecordedActivity() async {
    struct SelfTimed: ExchangeTransfer {
      let last: Locked<ContinuousClock.Instant?>
      var lastActivity: ContinuousClock.Instant? { last.withLock { $0 } }
      func begin() {}
      func stop() {}
      func discard() {}
    }
    let start = clock.now
    let last = Locked<ContinuousClock.Instant?>(nil)
    let call = TransportCall<SelfTimed>(
      options: TransportOptions(idleTimeout: .seconds(10)), timer: DeadlineTimer(clock: clock))
    let result = await withCheckedContinuation { continuation in
      call.start(continuation, transfer: SelfTimed(last: last))
      // A byte after 7 s, recorded by the transfer alone: at 10 s the call names 17 s.
      last.withLock { $0 = start + .seconds(7) }
      #expect(call.timerFired(now: start + .seconds(10)) == start + .seconds(17))
      #expect(call.timerFired(now: start + .seconds(17)) == nil)
    }
    guard case .failure(.timedOut) = result else { return #expect(Bool(false), "\(result)") }
  }
}
