import CourierTestSupport
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The call's state machine: whatever the order of start, completion and cancellation, the
/// caller is resumed exactly once (a checked continuation traps on a second resume).
@Suite("DataTaskCall resumes its caller exactly once")
struct DataTaskCallTests {
  /// A suspended task that is never resumed against a server: its session's delegate queue
  /// is suspended, so its own completion handler never runs.
  func idleTask() -> (URLSession, URLSessionTask, OperationQueue) {
    let queue = OperationQueue()
    queue.isSuspended = true
    let configuration = URLSessionTransport.defaultSessionConfiguration()
    let session = URLSession(configuration: configuration, delegate: nil, delegateQueue: queue)
    let task = session.dataTask(with: URL(string: "http://127.0.0.1:9/")!) { _, _, _ in }
    return (session, task, queue)
  }

  @Test("cancelled before start: resumed with cancelled and no task is created")
  func cancelBeforeStart() async {
    let call = DataTaskCall()
    call.end(with: .cancelled)
    let made = Locked(0)
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) {
        made.withLock { $0 += 1 }
        return idleTask().1
      }
    }
    #expect(made.withLock { $0 } == 0)
    guard case .failure(.cancelled) = result else {
      Issue.record("\(result)")
      return
    }
  }

  @Test("completed, then cancelled: the answer stands")
  func completeThenCancel() async {
    let call = DataTaskCall()
    let (session, task, queue) = idleTask()
    defer {
      queue.isSuspended = false
      session.invalidateAndCancel()
    }
    let url = URL(string: "http://127.0.0.1:9/")!
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { task }
      let response = HTTPURLResponse(
        url: url, statusCode: 204, httpVersion: "HTTP/1.1", headerFields: ["A": "b"])
      call.complete(data: Data(), response: response, error: nil)
      call.end(with: .cancelled)
    }
    guard case .success(let response) = result else {
      Issue.record("\(result)")
      return
    }
    #expect(response.head.status == 204)
    #expect(response.head.headers["a"] == "b")
  }

  @Test("cancelled while running: resumed at once with cancelled; the late completion is ignored")
  func cancelThenLateCompletion() async {
    let call = DataTaskCall()
    let (session, task, queue) = idleTask()
    defer {
      queue.isSuspended = false
      session.invalidateAndCancel()
    }
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { task }
      call.end(with: .cancelled)
    }
    call.complete(data: nil, response: nil, error: URLError(.cancelled))
    guard case .failure(.cancelled) = result else {
      Issue.record("\(result)")
      return
    }
  }

  @Test(
    "URLSession's errors map to timedOut, cancelled and transport",
    arguments: [URLError.Code.timedOut, .cancelled, .cannotConnectToHost, .networkConnectionLost])
  func errorMapping(code: URLError.Code) {
    let mapped = DataTaskCall.result(data: nil, response: nil, error: URLError(code))
    switch (code, mapped) {
    case (.timedOut, .failure(.timedOut)), (.cancelled, .failure(.cancelled)):
      break
    case (_, .failure(.transport(let error))) where error.code == code:
      break
    default:
      Issue.record("\(code) became \(mapped)")
    }
    let bridged = DataTaskCall.result(
      data: nil, response: nil, error: NSError(domain: NSURLErrorDomain, code: code.rawValue))
    #expect("\(bridged)" == "\(mapped)")
  }

  @Test("a response that is not HTTP is a bad server response")
  func notHTTP() {
    let response = URLResponse(
      url: URL(string: "http://h.example")!, mimeType: nil, expectedContentLength: 0,
      textEncodingName: nil)
    guard
      case .failure(.transport(let error)) = DataTaskCall.result(
        data: nil, response: response, error: nil)
    else {
      Issue.record("expected a transport error")
      return
    }
    #expect(error.code == .badServerResponse)
  }

  @Test("the idle timeout: activity moves it on, silence for the whole of it ends the call")
  func idleTimeout() async {
    let clock = ManualClock()
    let start = clock.now
    let call = DataTaskCall(
      options: TransportOptions(idleTimeout: .seconds(100)), timer: DeadlineTimer(clock: clock))
    let (session, task, queue) = idleTask()
    defer {
      queue.isSuspended = false
      session.invalidateAndCancel()
    }
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { task }
      // A chunk after 60 s: at 100 s the call is not idle and names 160 s; then it is.
      clock.advance(by: .seconds(60))
      call.append(Data("x".utf8))
      #expect(call.call.timerFired(now: start + .seconds(100)) == start + .seconds(160))
      #expect(call.call.timerFired(now: start + .seconds(160)) == nil)
    }
    guard case .failure(.timedOut) = result else {
      Issue.record("\(result)")
      return
    }
  }

  @Test("a deadline ends the call when it passes, however active the transfer")
  func deadlineWins() async {
    let clock = ManualClock()
    let deadline = clock.now + .milliseconds(5)
    let call = DataTaskCall(
      options: TransportOptions(deadline: deadline, idleTimeout: .seconds(100)),
      timer: DeadlineTimer(clock: clock))
    let (session, task, queue) = idleTask()
    defer {
      queue.isSuspended = false
      session.invalidateAndCancel()
    }
    let result = await withCheckedContinuation { continuation in
      call.start(continuation) { task }
      clock.advance(by: .milliseconds(4))
      call.append(Data("x".utf8))
      #expect(call.call.timerFired(now: deadline - .nanoseconds(1)) == deadline)
      #expect(call.call.timerFired(now: deadline) == nil)
    }
    guard case .failure(.timedOut) = result else {
      Issue.record("\(result)")
      return
    }
  }
}
