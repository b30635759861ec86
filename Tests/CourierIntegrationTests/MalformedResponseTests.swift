import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Responses no server should send are refused", .timeLimit(.minutes(1)))
struct MalformedResponseTests {
  /// A server that writes `wire` as its whole response.
  func raw(_ wire: String) throws -> LoopbackServer {
    try LoopbackServer { _, response in try await response.sendRaw(Data(wire.utf8)) }
  }

  static let conflicting =
    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 10\r\nConnection: close\r\n\r\n"
    + "0123456789"

  @Test("two Content-Length fields that disagree are badServerResponse (RFC 9112 §6.3)")
  func conflictingLengths() async throws {
    let server = try raw(Self.conflicting)
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "x"))
    }
    #expect(error?.urlErrorCode == .badServerResponse, "\(String(describing: error))")
  }

  @Test("streams and downloads refuse them too")
  func conflictingLengthsStreamed() async throws {
    let server = try raw(Self.conflicting)
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let streamed = await #expect(throws: HTTPError.self) {
      for try await _ in try await client.bytes(Request<Data>(path: "x")) {}
    }
    #expect(streamed?.urlErrorCode == .badServerResponse)
    let downloaded = await #expect(throws: HTTPError.self) {
      try await client.download(Request<Data>(path: "x"), to: scratch.file("f")).finished()
    }
    #expect(downloaded?.urlErrorCode == .badServerResponse)
    #expect(scratch.contents.isEmpty)
  }

  /// libcurl reads `+5` as 5; RFC 9112 §6.3 allows digits only, and every transport holds
  /// Courier's one rule.
  @Test("a Content-Length that is not digits ('+5') is badServerResponse on every transport")
  func signedLength() async throws {
    let server = try raw(
      "HTTP/1.1 200 OK\r\nContent-Length: +5\r\nConnection: close\r\n\r\nhello")
    defer { server.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await HTTPClient(baseURL: server.baseURL).send(Request<Data>(path: "x"))
    }
    #expect(error?.urlErrorCode == .badServerResponse, "\(String(describing: error))")
  }

  /// RFC 9110 §15.2.2: a server switches only to a protocol the request's `Upgrade` asked
  /// for, and no `send` asks for one. The answer was read as a head whose body never ends,
  /// so the request hung until its timeout, on every transport.
  @Test("an unasked-for 101 Switching Protocols is badServerResponse at once, not a hang")
  func unsolicitedSwitch() async throws {
    let server = try LoopbackServer { _, response in
      try await response.writeHead(
        status: 101, headers: ["Upgrade": "foo", "Connection": "upgrade"], contentLength: 0)
      await response.clientDisconnected()
    }
    defer { server.stop() }
    var configuration = HTTPClient.Configuration()
    configuration.timeout = .seconds(30)
    let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
    for streams in [false, true] {
      let outcome = await watched(within: .seconds(20)) {
        do throws(HTTPError) {
          if streams {
            for try await _ in try await client.bytes(Request<Data>(path: "x")) {}
          } else {
            _ = try await client.send(Request<Data>(path: "x"))
          }
          return "answered"
        } catch {
          return error.urlErrorCode == .badServerResponse ? "badServerResponse" : "\(error)"
        }
      }
      #expect(outcome == "badServerResponse", "streams: \(streams)")
    }
  }

  @Test("interim 100 and 103 Early Hints heads are skipped: the answer has its own fields only")
  func interimHeads() async throws {
    let server = try raw(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n"
        + "\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
    defer { server.stop() }
    let answer = try await HTTPClient(baseURL: server.baseURL).response(
      for: Request<String>(path: "x"))
    #expect(answer.value == "hello")
    #expect(answer.response.status == 200)
    #expect(answer.response.headers["Link"] == nil)
  }

  /// The error said only "Transport error: bad server response": not which request, nor what
  /// was wrong with the answer (libcurl's own refusals named the URL).
  @Test(
    "a head refused as unreadable names the URL and what was wrong, on every transport",
    arguments: [
      ("Content-Length: 0x10", "Content-Length '0x10'"),
      ("Content-Length: 5\r\nContent-Length: 6", "Content-Length '5, 6'"),
      ("Content-Length: 99999999999999999999999", "Content-Length '99999999999999999999999'"),
    ])
  func refusalNamesURL(field: String, named: String) async throws {
    let server = try raw(
      "HTTP/1.1 200 OK\r\n\(field)\r\nConnection: close\r\n\r\nhello")
    defer { server.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await HTTPClient(baseURL: server.baseURL).send(Request<Data>(path: "the/path"))
    }
    let text = String(describing: error)
    #expect(error?.urlErrorCode == .badServerResponse, "\(text)")
    #expect(text.contains("/the/path") && text.contains(named), "\(text)")
  }

  @Test("the same length repeated is one length (the good path beside it)")
  func repeatedLength() async throws {
    let server = try raw(
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
    defer { server.stop() }
    let body = try await HTTPClient(baseURL: server.baseURL).send(Request<String>(path: "x"))
    #expect(body == "hello")
  }

  /// RFC 9112 §6.3: with both, Transfer-Encoding frames the body and Content-Length means
  /// nothing; read as the length, it refused a 5-byte body as over the limit.
  @Test("Transfer-Encoding overrides a Content-Length over the limit: the chunked body arrives")
  func transferEncodingOverridesLength() async throws {
    let server = try raw(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 999999999999\r\n\r\n"
        + "5\r\nhello\r\n0\r\n\r\n")
    defer { server.stop() }
    let body = try await HTTPClient(baseURL: server.baseURL).send(Request<String>(path: "x"))
    #expect(body == "hello")
  }

  @Test("a Content-Length over the limit alone is refused (the good path beside it)")
  func lengthOverLimit() async throws {
    let server = try raw(
      "HTTP/1.1 200 OK\r\nContent-Length: 999999999999\r\nConnection: close\r\n\r\nhello")
    defer { server.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await HTTPClient(baseURL: server.baseURL).send(Request<String>(path: "x"))
    }
    #expect(error == .responseTooLarge(limit: 16 * 1024 * 1024))
  }

  /// CurlTransport refuses each with badServerResponse; URLSession on Linux (whose libcurl
  /// reads them alike) reports unsupportedURL for the last three and takes the first as a
  /// 200, which is FoundationNetworking's to change (as PlatformNotes' table says).
  @Test(
    "a status line that is not 'HTTP/x NNN' is badServerResponse, from the transport itself",
    arguments: ["Http/1.1 200 OK", "HTTP/1.1 2000 OK", "HTTP/1.1 OK", "HTTP/1.1 20 OK"])
  func malformedStatusLine(_ line: String) async throws {
    let server = try raw("\(line)\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    #if canImport(FoundationNetworking)
      let curl = client.transport is CurlTransport
    #else
      let curl = false
    #endif
    if !curl && line.hasPrefix("Http/") {
      #if canImport(FoundationNetworking)
        #expect(try await client.send(Request<String>(path: "x")) == "hello")
      #endif
      return
    }
    let request = URLRequest(url: server.baseURL.appendingPathComponent("x"))
    let sent = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "x"))
    }
    let transported = await #expect(throws: HTTPError.self) {
      try await client.transport.send(request)
    }
    guard curl else { return }
    #expect(sent?.urlErrorCode == .badServerResponse, "\(String(describing: sent))")
    #expect(transported?.urlErrorCode == .badServerResponse)
  }

  /// A head of `lines` fields of `size` bytes each, then an empty body.
  static func head(lines: Int, size: Int) -> Data {
    var wire = "HTTP/1.1 200 OK\r\n"
    for index in 0..<lines {
      wire += "X-Flood-\(index): " + String(repeating: "a", count: size) + "\r\n"
    }
    return Data((wire + "Content-Length: 0\r\nConnection: close\r\n\r\n").utf8)
  }

  /// libcurl reads at most 300 KiB of head, 100 KiB in one field, and ended such a transfer
  /// as a lost connection (`CURLE_RECV_ERROR`) or out of memory: the server sent too much,
  /// the connection was fine. URLSession on Linux reports the one long field as an unknown
  /// error in the words a real shortage of memory gives ("Out of memory"), so there it stays
  /// unknown; CurlTransport knows the head had not ended.
  @Test(
    "a head over libcurl's limits (many fields, one long field) is badServerResponse",
    arguments: [(400, 1000), (1, 200_000)])
  func floodedHead(lines: Int, size: Int) async throws {
    let wire = Self.head(lines: lines, size: size)
    let server = try LoopbackServer { _, response in
      try? await response.sendRaw(wire)
      response.closeConnection()
    }
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    #if canImport(FoundationNetworking)
      if lines == 1, !(client.transport is CurlTransport) { return }
    #endif
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "x"))
    }
    #expect(error?.urlErrorCode == .badServerResponse, "\(String(describing: error))")
    guard case .transport(let urlError) = error else { return }
    let reason = urlError.userInfo[NSLocalizedDescriptionKey] as? String ?? ""
    #expect(reason.contains("head"), "\(reason)")
  }

  @Test("a large head within libcurl's limits arrives (the good path beside it)")
  func largeHead() async throws {
    let wire = Self.head(lines: 200, size: 1000)
    let server = try LoopbackServer { _, response in try await response.sendRaw(wire) }
    defer { server.stop() }
    let response = try await HTTPClient(baseURL: server.baseURL)
      .response(for: Request<Data>(path: "x")).response
    #expect(response.status == 200)
    #expect(response.headers["X-Flood-199"]?.count == 1000)
  }

  @Test(
    "a malformed chunked body is badServerResponse, not a lost connection, on every transport",
    arguments: [
      "zz\r\nabc\r\n0\r\n\r\n", "-3\r\nabc\r\n0\r\n\r\n", "3\r\nabcXX0\r\n\r\n",
      "ffffffffffffffffffff\r\nabc\r\n0\r\n\r\n", "0x3\r\nabc\r\n0\r\n\r\n",
    ])
  func malformedChunks(body: String) async throws {
    let server = try raw("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body)
    defer { server.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await HTTPClient(baseURL: server.baseURL).send(Request<String>(path: "x"))
    }
    #expect(error?.urlErrorCode == .badServerResponse, "\(String(describing: error))")
  }

  @Test("a chunked body cut off before its last chunk is a lost connection (beside it)")
  func truncatedChunks() async throws {
    let server = try raw("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n")
    defer { server.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await HTTPClient(baseURL: server.baseURL).send(Request<String>(path: "x"))
    }
    #expect(error?.urlErrorCode == .networkConnectionLost, "\(String(describing: error))")
  }

  @Test("a field value comes without the spaces and tabs around it, on every transport")
  func fieldWhitespace() async throws {
    let wire = "HTTP/1.1 200 OK\r\nX-Padded: \t value  \t\r\nContent-Length: 2\r\n\r\nok"
    let server = try LoopbackServer { _, response in try await response.sendRaw(Data(wire.utf8)) }
    defer { server.stop() }
    let response = try await HTTPClient(baseURL: server.baseURL)
      .response(for: Request<Data>(path: "x")).response
    #expect(response.headers["X-Padded"] == "value")
  }

  #if canImport(FoundationNetworking)
    /// A value in ISO-8859-1 (RFC 9110 §5.5's obs-text) arrives byte for byte over
    /// CurlTransport; URLSession on Linux fails the whole request with `URLError.unknown`
    /// (PlatformNotes), which this shows too: when it stops, the note must go.
    @Test("an ISO-8859-1 field value arrives byte for byte over CurlTransport, not over URLSession")
    func latin1Value() async throws {
      let wire =
        Data("HTTP/1.1 200 OK\r\nContent-Disposition: attachment; filename=\"caf".utf8) + [0xE9]
        + Data(".txt\"\r\nContent-Length: 2\r\n\r\nok".utf8)
      let server = try LoopbackServer { _, response in try await response.sendRaw(wire) }
      defer { server.stop() }
      let response = try await HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
        .response(for: Request<Data>(path: "x")).response
      #expect(response.headers["Content-Disposition"] == "attachment; filename=\"café.txt\"")
      let error = await #expect(throws: HTTPError.self) {
        try await HTTPClient(baseURL: server.baseURL, transport: URLSessionTransport())
          .send(Request<Data>(path: "x"))
      }
      #expect(error?.urlErrorCode == .unknown)
      // The description shows FoundationNetworking's words, which say more than "unknown".
      #expect(
        "\(String(describing: error))".contains("(URLError -1): Failed writing header"),
        "\(String(describing: error))")
    }

    /// libcurl says what it found; the error said only "network connection lost". Over
    /// URLSessionTransport, FoundationNetworking reported the same as `unknown`, which no
    /// retry policy takes for a lost connection, saying nothing.
    @Test(
      "a body cut short is a lost connection that says how much was missing, on both transports",
      arguments: [
        (
          "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + String(repeating: "a", count: 40),
          "60 bytes remaining"
        ),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n", "outstanding"),
      ])
    func bodyCutShort(wire: String, says: String) async throws {
      for transport in [CurlTransport() as any HTTPTransport, URLSessionTransport()] {
        let error = await failure(sendingAndClosing: wire, over: transport)
        let text = "\(type(of: transport)): \(String(describing: error))"
        #expect(error?.urlErrorCode == .networkConnectionLost, "\(text)")
        #expect(text.contains(says), "\(text)")
        #expect(error.map(RetryPolicy.isTransient) == true, "\(text)")
      }
    }

    /// The good path beside ``bodyCutShort(wire:says:)``: the same bodies, whole.
    @Test("the same bodies, whole, are read on both transports")
    func bodyWhole() async throws {
      let wires = [
        "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n" + String(repeating: "a", count: 40),
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
      ]
      for wire in wires {
        let server = try raw(wire)
        defer { server.stop() }
        for transport in [CurlTransport() as any HTTPTransport, URLSessionTransport()] {
          let client = HTTPClient(baseURL: server.baseURL, transport: transport)
          let body = try await client.send(Request<String>(path: "x"))
          #expect(body == String(repeating: "a", count: 40) || body == "abc")
        }
      }
    }

    /// Over URLSessionTransport on Linux the same responses crash the process inside
    /// FoundationNetworking (PlatformNotes), so this holds CurlTransport only.
    @Test(
      "a head the server cuts off (after the status line, mid-field) is badServerResponse",
      arguments: ["HTTP/1.1 200 OK\r\n", "HTTP/1.1 200 OK\r\nContent-Le"])
    func headCutOff(wire: String) async throws {
      let error = await curlFailure(sendingAndClosing: wire)
      #expect(error?.urlErrorCode == .badServerResponse, "\(String(describing: error))")
    }

    /// The error of a request over CurlTransport to a server that writes `wire` and closes
    /// the connection.
    func curlFailure(sendingAndClosing wire: String) async -> HTTPError? {
      await failure(sendingAndClosing: wire, over: CurlTransport())
    }

    /// The error of a request over `transport` to a server that writes `wire` and closes the
    /// connection.
    func failure(sendingAndClosing wire: String, over transport: any HTTPTransport) async
      -> HTTPError?
    {
      guard
        let server = try? LoopbackServer(handler: { _, response in
          try await response.sendRaw(Data(wire.utf8))
          response.closeConnection()
        })
      else { return nil }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: transport)
      return await #expect(throws: HTTPError.self) {
        try await client.send(Request<String>(path: "x"))
      }
    }
  #endif
}
