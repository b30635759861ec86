import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Cancellation reaches the socket and resumes the caller once", .timeLimit(.minutes(1)))
struct CancellationTests {
  @Test("cancelled before the request starts: cancelled, and nothing reaches the server")
  func beforeStart() async throws {
    let loopback = try Loopback { _, response in try await response.send(text: "ok") }
    defer { loopback.stop() }
    let server = loopback.server
    let client = loopback.client
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await client.send(Request<String>(path: "x"))
    }
    await expectCancelled(task)
    #expect(server.connectionCount == 0)
    let next = try await client.send(Request<String>(path: "x"))
    #expect(next == "ok")
  }

  @Test("the transport itself, cancelled before it starts, creates no data task")
  func transportBeforeStart() async throws {
    let loopback = try Loopback { _, response in try await response.send(text: "ok") }
    defer { loopback.stop() }
    let transport = URLSessionTransport()
    let request = URLRequest(url: loopback.server.baseURL.appendingPathComponent("x"))
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await transport.send(request)
    }
    await expectCancelled(task)
    #expect(loopback.server.connectionCount == 0)
    #expect(try await transport.send(request).text == "ok")
  }

  @Test("cancelled during the request: cancelled, and the server sees the client go away")
  func during() async throws {
    let started = Signal()
    let gone = Signal()
    let loopback = try Loopback { _, response in
      started.fire()
      await response.clientDisconnected()
      gone.fire()
    }
    defer { loopback.stop() }
    let client = loopback.client
    let task = Task { try await client.send(Request<Data>(path: "wait")) }
    await started.wait()
    task.cancel()
    await expectCancelled(task)
    await watched { await gone.wait() }
  }

  @Test("cancelled after the answer arrived: the answer stands, and the client keeps working")
  func after() async throws {
    let loopback = try Loopback { _, response in try await response.send(text: "done") }
    defer { loopback.stop() }
    let client = loopback.client
    let task = Task { try await client.send(Request<String>(path: "x")) }
    let value = try await task.value
    task.cancel()
    #expect(value == "done")
    #expect(try await task.value == "done")
    #expect(try await client.send(Request<String>(path: "again")) == "done")
  }

  @Test("the caller is resumed without waiting for URLSession's completion handler")
  func promptWithoutCompletion() async throws {
    // Completion handlers run on the session's delegate queue; with that queue suspended
    // they never run, so only a resume from the cancellation itself can end this call.
    let queue = OperationQueue()
    queue.isSuspended = true
    let session = URLSession(
      configuration: URLSessionTransport.defaultSessionConfiguration(), delegate: nil,
      delegateQueue: queue)
    defer {
      queue.isSuspended = false
      session.finishTasksAndInvalidate()
    }
    let started = Signal()
    let gone = Signal()
    let server = try LoopbackServer { _, response in
      started.fire()
      await response.clientDisconnected()
      gone.fire()
    }
    defer { server.stop() }
    let client = HTTPClient(
      baseURL: server.baseURL, transport: URLSessionTransport(session: session))
    let task = Task { try await client.send(Request<Data>(path: "wait")) }
    await started.wait()
    task.cancel()
    await expectCancelled(task)
    await watched { await gone.wait() }
  }

  @Test("many requests cancelled at once each resume exactly once, and the client recovers")
  func manyCancelled() async throws {
    let started = Signal()
    let loopback = try Loopback { request, response in
      if request.path.hasSuffix("ok") {
        try await response.send(text: "ok")
      } else {
        started.fire()
        await response.clientDisconnected()
      }
    }
    defer { loopback.stop() }
    let client = loopback.client
    let tasks = (0..<50).map { _ in Task { try await client.send(Request<Data>(path: "wait")) } }
    await started.wait()
    for task in tasks { task.cancel() }
    for task in tasks { await expectCancelled(task) }
    let next = try await client.send(Request<String>(path: "ok"))
    #expect(next == "ok")
  }
}
