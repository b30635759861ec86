import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension TransportConformance {
  /// The checks for a transport that opens connections (`connect(to:options:)`, as
  /// `CurlTransport` does), over sockets (``Check/run(on:)``): the channel moves the caller's
  /// bytes and nothing else, `close()` ends it, bad URLs are refused before anything
  /// connects, and `HTTPClient`'s WebSockets run on it — including one its user lets go
  /// without closing.
  ///
  /// ```swift
  /// @Test(arguments: TransportConformance.connectionChecks)
  /// func connects(_ check: TransportConformance.Check) async throws {
  ///   try await check.run(on: MyTransport())
  /// }
  /// ```
  public static var connectionChecks: [Check] {
    [
      Check(name: "a connection sends nothing of its own, and reads to the server's end") { lab in
        let server = try lab.server { request, response in
          try await response.send(text: "\(request.method) \(request.path)")
        }
        defer { server.stop() }
        // The URL's path and query are not sent: only what the caller writes is.
        let url = URL(string: "ws://127.0.0.1:\(server.port)/not/this?x=1")!
        let channel = try await lab.transport.connect(to: url, options: .init())
        defer { channel.close() }
        try await channel.write(
          Data("GET /raw HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        let answer = try await within("the whole answer") { () async -> Result<Data, HTTPError> in
          do throws(HTTPError) {
            var answer = Data()
            while let bytes = try await channel.read() { answer += bytes }
            return .success(answer)
          } catch {
            return .failure(error)
          }
        }.get()
        let text = String(decoding: answer, as: UTF8.self)
        try expect(
          text.hasPrefix("HTTP/1.1 200") && text.hasSuffix("GET /raw"),
          "the server answered something else: \(text)")
        try expect(server.connectionCount == 1, "\(server.connectionCount) connections opened")
      },
      Check(name: "close() ends a waiting read, and every later call, with cancelled") { lab in
        let gone = FirstOutcome<Void>()
        let server = try lab.server { _, response in
          await response.clientDisconnected()
          gone.finish(())
        }
        defer { server.stop() }
        let channel = try await lab.transport.connect(to: server.baseURL, options: .init())
        try await channel.write(Data("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        // Whether the read is waiting yet or starts after close(), it ends the same way.
        let reading = Task { () async -> HTTPError? in
          await failure { () async throws(HTTPError) in try await channel.read() }
        }
        channel.close()
        try expect(try await within("the read's end") { await reading.value }, is: .cancelled)
        try expect(
          await failure { () async throws(HTTPError) in try await channel.read() },
          is: .cancelled)
        try expect(
          await failure { () async throws(HTTPError) in try await channel.write(Data([1])) },
          is: .cancelled)
        channel.close()
        try await within("the server seeing the connection closed") { await gone.value() }
      },
      Check(
        name:
          "a URL that is not http, https, ws or wss, or has no host: invalidRequest, unconnected"
      ) {
        lab in
        let server = try lab.server { _, response in try await response.send(text: "no") }
        defer { server.stop() }
        for url in ["ftp://127.0.0.1:\(server.port)/", "http:///path", "mailto:ann@example.com"] {
          let error = await failure { () async throws(HTTPError) in
            try await lab.transport.connect(to: URL(string: url)!, options: .init())
          }
          guard case .invalidRequest = error else {
            throw ConformanceFailure(
              "\(url): expected invalidRequest, got \(String(describing: error))")
          }
        }
        try expect(server.connectionCount == 0, "a refused URL opened a connection")
        // The server's own URL connects: a transport that declines all fails here.
        try await lab.transport.connect(to: server.baseURL, options: .init()).close()
      },
      Check(name: "a WebSocket runs on it: upgraded, echoed, closed with its code") { lab in
        let heard = FirstOutcome<WebSocketCloseCode?>()
        let server = try lab.server { _, response in
          let socket = try await response.upgradeToWebSocket()
          try await socket.echoUntilClosed()
          heard.finish(socket.closeFrame?.code)
        }
        defer { server.stop() }
        let socket = try await webSocket(on: lab.transport, server)
        try await socket.send("hello")
        try await socket.send(Data([0, 1, 2, 255]))
        var messages = socket.messages.makeAsyncIterator()
        let first = try await messages.next()
        let second = try await messages.next()
        try expect(
          first == .text("hello") && second == .binary(Data([0, 1, 2, 255])),
          "echoed \(String(describing: first)), \(String(describing: second))")
        await socket.close(.goingAway, reason: "done")
        try expect(
          socket.closure?.code == .goingAway, "closed with \(String(describing: socket.closure))")
        let code = try await within("the server hearing the close frame") { await heard.value() }
        try expect(code == .goingAway, "the server heard \(String(describing: code))")
      },
      Check(name: "a WebSocket let go without close() ends its connection") { lab in
        let ended = FirstOutcome<Void>()
        let server = try lab.server { _, response in
          let socket = try await response.upgradeToWebSocket()
          defer { ended.finish(()) }
          while (try? await socket.receiveMessage()) != nil {}
        }
        defer { server.stop() }
        do {
          let socket = try await webSocket(on: lab.transport, server)
          try await socket.send("one, and gone")
        }
        try await within("the server seeing the connection end") { await ended.value() }
      },
    ]
  }

  /// A WebSocket to `server`'s `/chat` through an ``HTTPClient`` over `transport`, without
  /// pings. Its close timeout is long: a bound on a stuck close, which a loaded machine must
  /// not reach while the close frame is on its way.
  private static func webSocket(on transport: any HTTPTransport, _ server: LoopbackServer)
    async throws(HTTPError) -> WebSocket
  {
    let client = HTTPClient(
      baseURL: URL(string: "ws://127.0.0.1:\(server.port)")!, transport: transport)
    return try await client.webSocket(
      Request<Data>(path: "chat"), settings: .init(pingInterval: nil, closeTimeout: .seconds(30)))
  }
}
