import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1)))
struct LoopbackServerTests {
  @Test("sends the handler's status, headers and body and shows it the request")
  func roundTrip() async throws {
    let (requests, seen) = AsyncStream.makeStream(of: LoopbackRequest.self)
    let server = try LoopbackServer { request, response in
      seen.yield(request)
      try await response.send(
        status: 201, headers: ["X-Reply": "yes", "Content-Type": "application/x-test"],
        body: Data("created".utf8))
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    var request = URLRequest(url: server.baseURL.appendingPathComponent("items/7"))
    request.httpMethod = "PUT"
    request.setValue("abc", forHTTPHeaderField: "X-Request-ID")
    let fetched = try await client.fetch(request)

    #expect(fetched.status == 201)
    #expect(fetched.header("X-Reply") == "yes")
    #expect(fetched.header("Content-Type") == "application/x-test")
    #expect(fetched.header("Content-Length") == "7")
    #expect(fetched.text == "created")
    var iterator = requests.makeAsyncIterator()
    let received = try #require(await iterator.next())
    #expect(received.method == "PUT")
    #expect(received.path == "/items/7")
    #expect(received.headers["x-request-id"] == "abc")
    #expect(received.body.isEmpty)
  }

  @Test("works as the documentation shows")
  func documentedExample() async throws {
    let server = try LoopbackServer { request, response in
      try await response.send(json: #"{"page": \#(request.queryValues("page").first ?? "1")}"#)
    }
    defer { server.stop() }
    let url = server.baseURL.appendingPathComponent("3/movie/popular")
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    let first = try await client.get(url)
    let second = try await client.get(try #require(URL(string: url.absoluteString + "?page=2")))

    #expect(first.text == #"{"page": 1}"#)
    #expect(second.text == #"{"page": 2}"#)
  }

  @Test("sends text and JSON with their content types")
  func textAndJSON() async throws {
    let server = try LoopbackServer { request, response in
      if request.path == "/json" {
        try await response.send(json: #"{"ok":true}"#)
      } else {
        try await response.send(status: 404, text: "no such thing: café")
      }
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    let json = try await client.get(server.baseURL.appendingPathComponent("json"))
    let text = try await client.get(server.baseURL.appendingPathComponent("missing"))

    #expect(json.header("Content-Type") == "application/json")
    #expect(json.text == #"{"ok":true}"#)
    #expect(text.status == 404)
    #expect(text.header("Content-Type") == "text/plain; charset=utf-8")
    #expect(text.text == "no such thing: café")
  }

  @Test(
    "names every body's type and forbids sniffing, so Apple's URLSession never holds bytes back")
  func noSniffing() async throws {
    let server = try LoopbackServer { request, response in
      switch request.path {
      case "/unnamed":
        try await response.writeHead()
        try await response.write(Data("a".utf8))
        try await response.finish()
      case "/named":
        try await response.send(headers: ["Content-Type": "image/png"], body: Data([1]))
      default:
        try await response.send(status: 204)
      }
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    let unnamed = try await client.get(server.baseURL.appendingPathComponent("unnamed"))
    let named = try await client.get(server.baseURL.appendingPathComponent("named"))
    let empty = try await client.get(server.baseURL.appendingPathComponent("empty"))

    #expect(unnamed.header("Content-Type") == "application/octet-stream")
    #expect(unnamed.header("X-Content-Type-Options") == "nosniff")
    #expect(named.header("Content-Type") == "image/png")
    #expect(named.header("X-Content-Type-Options") == "nosniff")
    #expect(empty.header("Content-Type") == nil)
    #expect(empty.header("X-Content-Type-Options") == "nosniff")
  }

  @Test("decodes the path and query: plus, %2B, %20, emoji, repeated names, empty values")
  func queryDecoding() async throws {
    let (requests, seen) = AsyncStream.makeStream(of: LoopbackRequest.self)
    let server = try LoopbackServer { request, response in
      seen.yield(request)
      try await response.send()
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }
    let target =
      "/movies/caf%C3%A9?q=a+b&q=a%2Bb&space=a%20b&emoji=%F0%9F%8E%AC&empty=&flag&q=%26%3D"

    _ = try await client.get(try #require(URL(string: server.baseURL.absoluteString + target)))

    var iterator = requests.makeAsyncIterator()
    let request = try #require(await iterator.next())
    #expect(request.target == target)
    #expect(request.path == "/movies/café")
    let items = request.queryItems.map { "\($0.name)=\($0.value)" }
    #expect(items == ["q=a+b", "q=a+b", "space=a b", "emoji=🎬", "empty=", "flag=", "q=&="])
    #expect(request.queryValues("q") == ["a+b", "a+b", "&="])
    #expect(request.queryValues("flag") == [""])
    #expect(request.queryValues("missing").isEmpty)
  }

  @Test("reads a request body framed by Content-Length")
  func contentLengthBody() async throws {
    let (requests, seen) = AsyncStream.makeStream(of: LoopbackRequest.self)
    let server = try LoopbackServer { request, response in
      seen.yield(request)
      try await response.send(text: "\(request.body.count)")
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }
    let body = Data((0..<300_000).map { (i: Int) in UInt8(truncatingIfNeeded: i &* 31) })

    var request = URLRequest(url: server.baseURL.appendingPathComponent("upload"))
    request.httpMethod = "POST"
    request.httpBody = body
    let fetched = try await client.fetch(request)

    #expect(fetched.text == "300000")
    var iterator = requests.makeAsyncIterator()
    let received = try #require(await iterator.next())
    #expect(received.headers["Content-Length"] == "300000")
    #expect(received.body == body)
  }

  @Test("reads a chunked request body, with a chunk extension and a trailer")
  func chunkedBody() async throws {
    let server = try LoopbackServer { request, response in
      try await response.send(
        text: "\(request.method) got \(String(decoding: request.body, as: UTF8.self))")
    }
    defer { server.stop() }

    let reply = try await RawHTTPConnection.exchange(
      port: server.port,
      sending:
        "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        + "5\r\nhello\r\n6;name=value\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n")

    #expect(reply.hasPrefix("HTTP/1.1 200 OK\r\n"))
    #expect(reply.hasSuffix("\r\n\r\nPOST got hello world"))
  }

  @Test("sends 100 Continue to a client that waits for it before sending the body")
  func expectContinue() async throws {
    let server = try LoopbackServer { request, response in
      try await response.send(text: String(decoding: request.body, as: UTF8.self))
    }
    defer { server.stop() }

    let reply = try await RawHTTPConnection.converse(
      port: server.port,
      [
        "PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n"
          + "Connection: close\r\n\r\n",
        "body",
      ])

    #expect(reply.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"))
    #expect(reply.hasSuffix("\r\n\r\nbody"))
  }

  @Test("keeps the connection alive: two requests, one connection")
  func keepAlive() async throws {
    let server = try LoopbackServer { request, response in
      try await response.send(text: request.path)
    }
    defer { server.stop() }
    let client = URLSessionTestClient()
    defer { client.invalidate() }

    let first = try await client.get(server.baseURL.appendingPathComponent("one"))
    let second = try await client.get(server.baseURL.appendingPathComponent("two"))

    #expect(first.text == "/one")
    #expect(second.text == "/two")
    #expect(server.requestCount == 2)
    #expect(server.connectionCount == 1)
  }

  @Test("answers pipelined requests in order and closes when the client asks")
  func pipelining() async throws {
    let server = try LoopbackServer { request, response in
      try await response.send(text: request.path)
    }
    defer { server.stop() }

    let reply = try await RawHTTPConnection.exchange(
      port: server.port,
      sending:
        "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")

    let head =
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
      + "X-Content-Type-Options: nosniff\r\nContent-Length: 2\r\n"
    #expect(reply == head + "\r\n/a" + head + "Connection: close\r\n\r\n/b")
    #expect(server.requestCount == 2)
    #expect(server.connectionCount == 1)
  }

  @Test("answers a malformed request with 400 and closes the connection")
  func malformedRequest() async throws {
    let server = try LoopbackServer { _, response in
      try await response.send()
    }
    defer { server.stop() }

    let garbage = try await RawHTTPConnection.exchange(
      port: server.port, sending: "NOT A REQUEST AT ALL\r\n\r\n")
    let badLength = try await RawHTTPConnection.exchange(
      port: server.port, sending: "POST / HTTP/1.1\r\nContent-Length: ten\r\n\r\n")

    #expect(garbage.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
    #expect(garbage.contains("Connection: close\r\n"))
    #expect(badLength.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
    #expect(server.requestCount == 0)
  }
}
