import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// URLSession's own timeout (an idle timeout, in whole seconds) never ends an exchange
/// before Courier's deadline and idle timeout would.
@Suite("URLSession's timeout outlasts the exchange's rules")
struct URLSessionTimeoutTests {
  let now = ContinuousClock.now

  func timeout(head seconds: TimeInterval, idle: Duration?, deadlineIn left: Duration?)
    -> TimeInterval
  {
    var head = URLRequest(url: URL(string: "https://api.example.com/x")!)
    head.timeoutInterval = seconds
    let options = TransportOptions(deadline: left.map { now + $0 }, idleTimeout: idle)
    return URLSessionTransport.sessionTimeout(of: head, options: options, now: now)
  }

  @Test("raised to the idle timeout when the request's is shorter (a stream, a download)")
  func raisedToIdle() {
    #expect(timeout(head: 1, idle: .seconds(60), deadlineIn: nil) == 60)
    #expect(timeout(head: 1, idle: .milliseconds(1500), deadlineIn: nil) == 2)
  }

  @Test("raised to the time left before the deadline when that is shorter than the idle")
  func raisedToDeadline() {
    #expect(timeout(head: 1, idle: .seconds(60), deadlineIn: .milliseconds(30_200)) == 31)
    #expect(timeout(head: 1, idle: nil, deadlineIn: .seconds(5)) == 5)
  }

  @Test("Courier's session configuration has no request timeout of its own to cut a stream")
  func sessionConfiguration() {
    let configuration = URLSessionTransport.defaultSessionConfiguration()
    #expect(configuration.timeoutIntervalForRequest == RequestBuilder.longestTransportTimeout)
  }

  @Test("never lowered")
  func keptOtherwise() {
    #expect(timeout(head: 10, idle: .seconds(60), deadlineIn: .seconds(10)) == 10)
    #expect(timeout(head: 60, idle: .seconds(5), deadlineIn: nil) == 60)
  }

  @Test("without a deadline or an idle timeout, none: the longest URLSession takes")
  func noneWithoutLimits() {
    // A stream with `idleTimeout: nil` carried the client's timeout (7 s here), or, with no
    // timeout either, URLSession's default 60 s, and was cut after that long quiet.
    #expect(timeout(head: 7, idle: nil, deadlineIn: nil) == RequestBuilder.longestTransportTimeout)
    #expect(timeout(head: 60, idle: nil, deadlineIn: nil) == RequestBuilder.longestTransportTimeout)
  }
}
