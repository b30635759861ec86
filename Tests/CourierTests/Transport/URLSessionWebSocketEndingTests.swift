import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The rules by which a `URLSessionWebSocketTask`'s connection ends on Apple platforms, run
/// here as the values they are.
@Suite("URLSessionWebSocketTask: how a connection ends")
struct URLSessionWebSocketEndingTests {
  /// What URLSession reports for a message over `maximumMessageSize`: POSIX "Message too long".
  let tooLong = NSError(
    domain: NSPOSIXErrorDomain, code: URLSessionWebSocketEnding.darwinMessageTooLong)

  @Test("A message over the limit is responseTooLarge, also once the task has closed with 1009")
  func messageTooBig() {
    for closeCode in [0, 1009] {
      for error in [tooLong as any Error, HTTPError(transportFailure: tooLong)] {
        let failure = URLSessionWebSocketEnding.receiveFailure(
          error, closeCode: closeCode, peerClosed: false, maximumMessageSize: 1024,
          cancelled: false)
        #expect(failure == .responseTooLarge(limit: 1024))
      }
    }
  }

  @Test("A receive that fails after a close ends the messages; otherwise it fails as it failed")
  func otherFailures() {
    let lost = URLError(.networkConnectionLost)
    func failure(closeCode: Int, peerClosed: Bool, cancelled: Bool) -> HTTPError? {
      URLSessionWebSocketEnding.receiveFailure(
        lost, closeCode: closeCode, peerClosed: peerClosed, maximumMessageSize: 1024,
        cancelled: cancelled)
    }
    #expect(failure(closeCode: 1000, peerClosed: false, cancelled: false) == nil)
    #expect(failure(closeCode: 0, peerClosed: true, cancelled: false) == nil)
    #expect(failure(closeCode: 0, peerClosed: false, cancelled: true) == .cancelled)
    #expect(failure(closeCode: 0, peerClosed: false, cancelled: false) == .transport(lost))
  }

  @Test("The task's close code and reason stand in for a didCloseWith that has not run yet")
  func closureFromTheTask() {
    #expect(URLSessionWebSocketEnding.closure(code: 0, reason: nil) == nil)
    #expect(
      URLSessionWebSocketEnding.closure(code: 1001, reason: Data("bye".utf8))
        == WebSocketClosure(code: .goingAway, reason: "bye"))
    #expect(
      URLSessionWebSocketEnding.closure(code: 4000, reason: nil)
        == WebSocketClosure(code: WebSocketCloseCode(rawValue: 4000), reason: ""))
  }

  @Test("The peer's close is answered with its own code, or 1000 when it has none to send back")
  func answerToThePeersClose() {
    #expect(URLSessionWebSocketEnding.answer(to: nil) == nil)
    #expect(URLSessionWebSocketEnding.answer(to: WebSocketClosure(code: .goingAway)) == 1001)
    #expect(URLSessionWebSocketEnding.answer(to: WebSocketClosure(code: .normalClosure)) == 1000)
    #expect(URLSessionWebSocketEnding.answer(to: WebSocketClosure(code: .noStatusReceived)) == 1000)
    #expect(
      URLSessionWebSocketEnding.answer(
        to: WebSocketClosure(code: WebSocketCloseCode(rawValue: 4000)))
        == 4000)
  }

  @Test("A server's close frame without a code is 1005, as RFC 6455 names it")
  func codelessServerClose() {
    #expect(
      URLSessionWebSocketEnding.serverClosure(code: 0, reason: nil)
        == WebSocketClosure(code: .noStatusReceived))
    #expect(
      URLSessionWebSocketEnding.serverClosure(code: 1001, reason: Data("bye".utf8))
        == WebSocketClosure(code: .goingAway, reason: "bye"))
  }
}
