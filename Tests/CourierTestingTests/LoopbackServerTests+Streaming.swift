import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension LoopbackServerTests {
  @Test("streams a chunked response that the client reads back whole")
  func chunkedResponse() async throws {
    let server = try LoopbackServer { _, response in
      try await response.writeHead(headers: ["Content-Type": "text/plain"])
      for part in ["alpha ", "beta ", "gamma"] {
        try await response.write(Data(part.utf8))
      }
      try await response.finish()
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    let fetched = try await client.get(server.baseURL)

    #expect(fetched.status == 200)
    #expect(fetched.text == "alpha beta gamma")
  }

  @Test("puts chunked framing on the wire exactly")
  func chunkedFraming() async throws {
    let server = try LoopbackServer { _, response in
      try await response.writeHead(status: 202)
      try await response.write(Data("hello".utf8))
      try await response.write(Data())  // dropped: an empty chunk would end the body
      try await response.write(Data(" world".utf8))
      try await response.finish()
    }
    defer { server.stop() }

    let reply = try await RawHTTPConnection.exchange(
      port: server.port, sending: "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")

    #expect(
      reply == "HTTP/1.1 202 Accepted\r\nContent-Type: application/octet-stream\r\n"
        + "X-Content-Type-Options: nosniff\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
  }

  @Test("streams a response with Content-Length in several writes")
  func contentLengthStream() async throws {
    let server = try LoopbackServer { _, response in
      try await response.writeHead(contentLength: 10)
      try await response.write(Data("0123".utf8))
      try await response.write(Data("456789".utf8))
      try await response.finish()
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    let fetched = try await client.get(server.baseURL)

    #expect(fetched.header("Content-Length") == "10")
    #expect(fetched.text == "0123456789")
  }

  @Test("drips a response in small writes with pauses between them")
  func drippedResponse() async throws {
    let server = try LoopbackServer { _, response in
      try await response.writeHead()
      for index in 0..<5 {
        try await response.write(Data("drop\(index);".utf8))
        try await Task.sleep(for: .milliseconds(20))
      }
      try await response.finish()
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    let fetched = try await client.get(server.baseURL)

    #expect(fetched.text == "drop0;drop1;drop2;drop3;drop4;")
  }

  @Test("finishes a streamed response the handler left open")
  func finishesForTheHandler() async throws {
    let server = try LoopbackServer { _, response in
      try await response.writeHead()
      try await response.write(Data("partial".utf8))
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    let fetched = try await client.get(server.baseURL)

    #expect(fetched.text == "partial")
  }

  @Test("sends a large body that the client drains as it reads")
  func largeBody() async throws {
    let body = Data((0..<8_000_000).map { UInt8(truncatingIfNeeded: $0) })
    let server = try LoopbackServer { _, response in
      try await response.send(body: body)
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    let fetched = try await client.get(server.baseURL)

    #expect(fetched.body == body)
  }

  @Test("cuts the connection mid-body, and the client reports an error")
  func closedMidBody() async throws {
    let server = try LoopbackServer { _, response in
      try await response.writeHead(contentLength: 1000)
      try await response.write(Data(repeating: 0x41, count: 10))
      response.closeConnection()
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    await #expect(throws: (any Error).self) {
      try await client.get(server.baseURL)
    }
  }

  @Test("sends no body in answer to HEAD, and the connection stays usable")
  func headRequest() async throws {
    let server = try LoopbackServer { _, response in
      try await response.send(text: "hello")
    }
    defer { server.stop() }

    let reply = try await RawHTTPConnection.exchange(
      port: server.port,
      sending:
        "HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")

    let head =
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
      + "X-Content-Type-Options: nosniff\r\nContent-Length: 5\r\n"
    #expect(reply == head + "\r\n" + head + "Connection: close\r\n\r\nhello")
  }

  @Test("sends neither framing nor body with 204")
  func noContent() async throws {
    let server = try LoopbackServer { _, response in
      try await response.send(status: 204, body: Data("ignored".utf8))
    }
    defer { server.stop() }

    let reply = try await RawHTTPConnection.exchange(
      port: server.port, sending: "DELETE /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")

    #expect(
      reply
        == "HTTP/1.1 204 No Content\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n"
    )
  }
}
