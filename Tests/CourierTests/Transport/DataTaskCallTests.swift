import CourierTestSupport
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// URLSession's side of an exchange: no task made for a call cancelled before it started,
/// and URLSession's answers mapped to ``HTTPError``. (What happens once a call has started
/// is ``TransportCall``'s, tested with a transfer of the test's own: resuming a real task and
/// cancelling it at once can crash FoundationNetworking, its issue with the task registry.)
@Suite("DataTaskCall maps URLSession's callbacks")
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

  /// What the Apple WebSocket's upgrade and refusal and a background transfer's answer are
  /// made of too: one conversion for every head URLSession gives.
  @Test("a URLSession head: fields sorted by name, joined Set-Cookie fields parted again")
  func head() throws {
    let http = try #require(
      HTTPURLResponse(
        url: URL(string: "http://h.example/chat")!, statusCode: 403, httpVersion: "HTTP/1.1",
        headerFields: [
          "X-Reason": "closed",
          "Set-Cookie": "a=1; Path=/, b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT",
          "Content-Type": "text/plain",
        ]))
    let response = HTTPResponse(head: http)
    #expect(response.status == 403)
    #expect(response.url == http.url)
    #expect(
      response.headers.map(\.name) == ["Content-Type", "Set-Cookie", "Set-Cookie", "X-Reason"])
    #expect(
      response.headers.values(for: "Set-Cookie") == [
        "a=1; Path=/", "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT",
      ])
    let result = DataTaskCall.result(data: Data("no".utf8), response: http, error: nil)
    #expect(
      (try? result.get())
        == {
          var same = response
          same.body = Data("no".utf8)
          return same
        }())
  }
}
