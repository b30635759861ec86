#if canImport(FoundationNetworking)
  import CourierTestSupport
  import CourierTesting
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import Courier

  /// CurlTransport's `connect`: a connection and nothing else, its bytes the caller's.
  @Suite("CurlTransport's byte channel", .timeLimit(.minutes(1)))
  struct CurlByteChannelTests {
    @Test("connect sends nothing: the first bytes the server reads are the caller's")
    func sendsNothing() async throws {
      let server = try LoopbackServer { request, response in
        try await response.send(text: "\(request.method) \(request.path)")
      }
      defer { server.stop() }
      let channel = try await CurlTransport().connect(
        to: URL(string: "ws://127.0.0.1:\(server.port)/not/this?x=1")!, options: TransportOptions())
      try await channel.write(
        Data("GET /raw HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
      var answer = Data()
      while let bytes = try await channel.read() { answer += bytes }
      let text = String(decoding: answer, as: UTF8.self)
      #expect(text.hasPrefix("HTTP/1.1 200"))
      #expect(text.hasSuffix("GET /raw"))
      channel.close()
    }

    @Test("close() fails a waiting read at once, and every later call, with cancelled")
    func closeEndsWaitingCalls() async throws {
      let server = try LoopbackServer { _, response in await response.clientDisconnected() }
      defer { server.stop() }
      let channel = try await CurlTransport().connect(
        to: server.baseURL, options: TransportOptions())
      try await channel.write(Data("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
      let reading = Task { () async -> HTTPError? in
        do throws(HTTPError) {
          _ = try await channel.read()
          return nil
        } catch {
          return error
        }
      }
      let channelState = try #require(channel as? CurlByteChannel).state
      await eventually { channelState.withLock { $0.reader != nil } }
      channel.close()
      #expect(await reading.value == .cancelled)
      await #expect(throws: HTTPError.cancelled) { try await channel.read() }
      await #expect(throws: HTTPError.cancelled) { try await channel.write(Data([1])) }
    }

    @Test("A URL that is not http, https, ws or wss, or has no host: invalidRequest")
    func badInput() async throws {
      for url in ["ftp://127.0.0.1:1/", "http:///path", "mailto:someone@example.com"] {
        let error = await #expect(throws: HTTPError.self) {
          _ = try await CurlTransport().connect(to: URL(string: url)!, options: TransportOptions())
        }
        guard case .invalidRequest = error else {
          Issue.record("\(url): \(String(describing: error))")
          continue
        }
      }
    }
  }

  /// Returns once `condition` holds (each look after the other tasks have had a turn).
  private func eventually(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
  }
#endif
