import Testing

@testable import Courier

/// The one timeout rule, as a value: instants in, verdicts out, no clock read.
@Suite("TransportDeadlines: the deadline and idle rules of an exchange")
struct DeadlinesTests {
  let start = ContinuousClock.now

  func at(_ duration: Duration) -> ContinuousClock.Instant { start + duration }

  @Test("no deadline and no idle timeout: never due, never overdue")
  func untimed() {
    let rules = TransportDeadlines(deadline: nil, idleTimeout: nil, startingAt: start)
    #expect(rules.due == nil)
    #expect(!rules.isOverdue(at: at(.seconds(1_000_000))))
  }

  @Test("a deadline is due at its instant, overdue from it on, whatever moves")
  func deadline() {
    var rules = TransportDeadlines(deadline: at(.seconds(30)), idleTimeout: nil, startingAt: start)
    rules.touch(at: at(.seconds(29)))
    #expect(rules.due == at(.seconds(30)))
    #expect(!rules.isOverdue(at: at(.seconds(30)) - .nanoseconds(1)))
    #expect(rules.isOverdue(at: at(.seconds(30))))
  }

  @Test("the idle timeout covers the wait for the head: it runs from the exchange's start")
  func headWait() {
    let rules = TransportDeadlines(deadline: nil, idleTimeout: .seconds(10), startingAt: start)
    #expect(rules.due == at(.seconds(10)))
    #expect(!rules.isOverdue(at: at(.seconds(9))))
    #expect(rules.isOverdue(at: at(.seconds(10))))
  }

  @Test("every byte starts the idle period again; silence for all of it is overdue")
  func idle() {
    var rules = TransportDeadlines(deadline: nil, idleTimeout: .seconds(10), startingAt: start)
    rules.touch(at: at(.seconds(6)))
    #expect(rules.due == at(.seconds(16)))
    #expect(!rules.isOverdue(at: at(.seconds(15))))
    rules.touch(at: at(.seconds(15)))
    #expect(!rules.isOverdue(at: at(.seconds(24))))
    #expect(rules.isOverdue(at: at(.seconds(25))))
  }

  @Test("a touch from the past (a late callback) does not move activity back")
  func lateTouch() {
    var rules = TransportDeadlines(deadline: nil, idleTimeout: .seconds(10), startingAt: start)
    rules.touch(at: at(.seconds(8)))
    rules.touch(at: at(.seconds(3)))
    #expect(rules.due == at(.seconds(18)))
  }

  @Test("sub-second values are kept to the nanosecond, not rounded to seconds")
  func subSecond() {
    let rules = TransportDeadlines(
      deadline: at(.milliseconds(1_500)), idleTimeout: .milliseconds(250), startingAt: start)
    #expect(rules.due == at(.milliseconds(250)))
    #expect(!rules.isOverdue(at: at(.milliseconds(250)) - .nanoseconds(1)))
    #expect(rules.isOverdue(at: at(.milliseconds(250))))
  }

  @Test("the sooner of the deadline and the idle end is due")
  func sooner() {
    var rules = TransportDeadlines(
      deadline: at(.seconds(12)), idleTimeout: .seconds(10), startingAt: start)
    #expect(rules.due == at(.seconds(10)))
    rules.touch(at: at(.seconds(5)))
    #expect(rules.due == at(.seconds(12)))
    #expect(rules.isOverdue(at: at(.seconds(12))))
  }

  @Test("a transfer paused for its reader is not idle; resuming starts the period afresh")
  func pausedForReader() {
    var rules = TransportDeadlines(deadline: nil, idleTimeout: .seconds(10), startingAt: start)
    rules.pause()
    #expect(rules.due == nil)
    #expect(!rules.isOverdue(at: at(.seconds(3600))))
    rules.resume(at: at(.seconds(3600)))
    #expect(rules.due == at(.seconds(3610)))
  }

  @Test("two pauses (a full reader, a body not produced yet): idle again only after both end")
  func overlappingPauses() {
    var rules = TransportDeadlines(deadline: nil, idleTimeout: .seconds(10), startingAt: start)
    rules.pause()
    rules.pause()
    rules.resume(at: at(.seconds(100)))
    #expect(rules.due == nil)
    rules.resume(at: at(.seconds(200)))
    #expect(rules.due == at(.seconds(210)))
    rules.resume(at: at(.seconds(300)))  // one resume too many does not pause it again
    #expect(rules.due == at(.seconds(310)))
  }

  @Test("a pause does not stop the deadline")
  func pauseKeepsDeadline() {
    var rules = TransportDeadlines(
      deadline: at(.seconds(30)), idleTimeout: .seconds(10), startingAt: start)
    rules.pause()
    #expect(rules.due == at(.seconds(30)))
    #expect(rules.isOverdue(at: at(.seconds(30))))
  }

  @Test("a deadline already past is overdue at once")
  func pastDeadline() {
    let rules = TransportDeadlines(deadline: at(.seconds(-1)), idleTimeout: nil, startingAt: start)
    #expect(rules.isOverdue(at: start))
  }
}
