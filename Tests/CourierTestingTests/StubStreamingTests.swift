import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The stub keeps the transport contract: a body in chunks, a drop mid-body, and the
/// request's limits, as a real transport would.
@Suite("StubTransport streams, drops and honours limits")
struct StubStreamingTests {
  let request = TransportRequest(head: URLRequest(url: URL(string: "https://api.test/s")!))

  /// Every chunk of `body`, or the error that ended it.
  func read(_ body: TransportResponseBody) async -> ([Data], HTTPError?) {
    var chunks: [Data] = []
    do throws(HTTPError) {
      for try await chunk in body { chunks.append(chunk) }
      return (chunks, nil)
    } catch {
      return (chunks, error)
    }
  }

  @Test("a body in chunks arrives chunk by chunk, and a drop ends it with the stub's error")
  func chunksThenDrop() async throws {
    let parts = [Data("one".utf8), Data("two".utf8)]
    let stub = StubTransport().fallback { _ throws(HTTPError) in
      .chunks(parts, thenFailing: .transport(URLError(.networkConnectionLost)))
    }
    let response = try await stub.send(request, options: TransportOptions())
    #expect(response.head.status == 200)
    let (chunks, error) = await read(response.body)
    #expect(chunks == parts)
    guard case .transport(let urlError)? = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(urlError.code == .networkConnectionLost)
  }

  @Test("a body that goes quiet for the idle timeout ends with timedOut")
  func idleTimeout() async throws {
    let stub = StubTransport().fallback { _ throws(HTTPError) in
      .chunks([Data("a".utf8), Data("b".utf8)], every: .seconds(3600))
    }
    let options = TransportOptions(idleTimeout: .milliseconds(50))
    let error = await #expect(throws: HTTPError.self) {
      let response = try await stub.send(self.request, options: options)
      for try await _ in response.body {}
    }
    guard case .timedOut = error else {
      Issue.record("\(String(describing: error))")
      return
    }
  }

  @Test("the deadline ends a slow answer with timedOut; without one it would wait")
  func deadline() async throws {
    let stub = StubTransport(delay: .seconds(3600))
    let error = await #expect(throws: HTTPError.self) {
      _ = try await stub.send(
        self.request, options: TransportOptions(deadline: .now + .milliseconds(50)))
    }
    guard case .timedOut = error else {
      Issue.record("\(String(describing: error))")
      return
    }
  }

  @Test(
    "a Content-Length over a collected body's buffer is refused before the body; one within it passes"
  )
  func announcedLength() async throws {
    let stub = StubTransport().fallback { request throws(HTTPError) in
      let size = request.url?.lastPathComponent == "big" ? 5000 : 50
      return StubResponse(
        headers: ["Content-Length": String(size)], body: Data(repeating: 1, count: size))
    }
    let options = TransportOptions(collectsBody: true, bufferSize: 100)
    let big = TransportRequest(head: URLRequest(url: URL(string: "https://api.test/big")!))
    let error = await #expect(throws: HTTPError.self) {
      _ = try await stub.send(big, options: options)
    }
    guard case .responseTooLarge(100) = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    let small = try await stub.send(request, options: options)
    #expect(try await small.body.collect().count == 50)
  }

  @Test("upload progress reports the body sent")
  func progress() async throws {
    let reports = Locked<[[Int64?]]>([])
    let stub = StubTransport().fallback { _ throws(HTTPError) in
      .chunks([Data("ab".utf8), Data("cde".utf8)])
    }
    var upload = request
    upload.head.httpMethod = "POST"
    upload.body = .data(Data("12345".utf8))
    let options = TransportOptions(uploadProgress: { sent, expected in
      reports.withLock { $0.append([sent, expected]) }
    })
    let response = try await stub.send(upload, options: options)
    _ = try await response.body.collect()
    #expect(reports.withLock { $0 } == [[5, 5]])
  }

  @Test("cancelling the reader stops the stub's body")
  func cancelReading() async throws {
    let stub = StubTransport().fallback { _ throws(HTTPError) in
      .chunks([Data("a".utf8), Data("b".utf8)], every: .seconds(3600))
    }
    let response = try await stub.send(request, options: TransportOptions())
    let reader = Task { await read(response.body) }
    reader.cancel()
    let outcome = await watched { await reader.value }
    guard case .cancelled? = outcome?.1 else {
      Issue.record("\(String(describing: outcome))")
      return
    }
  }

  @Test("the Testing article's chunked stub: both chunks through a client, then the drop")
  func readmeChunks() async throws {
    let first = Data("first ".utf8)
    let second = Data("second".utf8)
    let stub = StubTransport().on(
      .get, "/feed",
      .chunks(
        [first, second], every: .milliseconds(10),
        thenFailing: .transport(URLError(.networkConnectionLost))))
    let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: stub)
    let stream = try await client.bytes(Request<Data>(path: "feed"))
    var received = Data()
    let error = await #expect(throws: HTTPError.self) {
      for try await chunk in stream { received.append(chunk) }
    }
    #expect(received == first + second)
    guard case .transport(let urlError)? = error else {
      Issue.record("\(String(describing: error))")
      return
    }
    #expect(urlError.code == .networkConnectionLost)
  }
}
