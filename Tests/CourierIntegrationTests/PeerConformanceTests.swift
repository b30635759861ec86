import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The cases of apple/swift-http-api-proposal's `HTTPClientConformance` that no other suite
/// here shows over a socket, on the transport under test: statuses outside the registered
/// ones, bodiless statuses that announce a length, a length field holding a list, content
/// codings decoded, bytes that are not HTTP, repeated fields, empty answers to every method,
/// and a redirect loop under the default policy.
@Suite("The peer conformance suite's remaining cases", .timeLimit(.minutes(1)))
struct PeerConformanceTests {
  /// A server that writes `wire` as its whole answer, then closes.
  func raw(_ wire: [UInt8]) throws -> LoopbackServer {
    try LoopbackServer { _, response in try await response.sendRaw(Data(wire)) }
  }

  func raw(_ wire: String) throws -> LoopbackServer { try raw(Array(wire.utf8)) }

  /// Every status a client may be handed.
  static let everyStatus = StatusCodes(100..<1000)

  @Test("a status outside the registered ones, 999 or 599, comes back as sent")
  func unregisteredStatus() async throws {
    for status in [999, 599, 299] {
      let server = try raw(
        "HTTP/1.1 \(status) Odd\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL)
      let answer = try await client.response(
        for: Request<String>(path: "x", acceptableStatusCodes: Self.everyStatus))
      #expect(answer.response.status == status && answer.value == "ok")
      // Under the default acceptable codes, only 299 is a success; the others are errors
      // that carry the status.
      do throws(HTTPError) {
        _ = try await client.send(Request<String>(path: "x"))
        #expect(status == 299)
      } catch {
        guard case .unacceptableStatus(let response) = error else {
          Issue.record("\(status): \(error)")
          continue
        }
        #expect(response.status == status)
      }
    }
  }

  @Test(
    "a 204 or 304 that announces a Content-Length has no body: the client does not wait for it",
    arguments: [204, 304])
  func bodilessStatusWithLength(status: Int) async throws {
    // The server closes right after the head: a client that waited for the 1,000 bytes the
    // field names would see the connection lost instead.
    let server = try raw(
      "HTTP/1.1 \(status) X\r\nContent-Length: 1000\r\nX-Marker: kept\r\nConnection: close\r\n\r\n"
    )
    defer { server.stop() }
    let answer = try await HTTPClient(baseURL: server.baseURL).response(
      for: Request<Data>(path: "x", acceptableStatusCodes: Self.everyStatus))
    #expect(answer.response.status == status && answer.value.isEmpty)
    #expect(answer.response.headers["X-Marker"] == "kept")
  }

  @Test(
    "one Content-Length field listing two lengths is refused; the same length listed twice is one"
  )
  func lengthList() async throws {
    let conflicting = try raw(
      "HTTP/1.1 200 OK\r\nContent-Length: 10, 4\r\nConnection: close\r\n\r\nabcd")
    defer { conflicting.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await HTTPClient(baseURL: conflicting.baseURL).send(Request<Data>(path: "x"))
    }
    #expect(error?.urlErrorCode == .badServerResponse, "\(String(describing: error))")

    let repeated = try raw(
      "HTTP/1.1 200 OK\r\nContent-Length: 4, 4\r\nConnection: close\r\n\r\nabcd")
    defer { repeated.stop() }
    let body = try await HTTPClient(baseURL: repeated.baseURL).send(Request<String>(path: "x"))
    #expect(body == "abcd")
  }

  /// "TEST\n" in each coding, as zlib, Python's `gzip` (mtime 0) and `brotli` write it.
  static let coded: [(coding: String, bytes: [UInt8])] = [
    (
      "gzip",
      [31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 11, 113, 13, 14, 225, 2, 0, 190, 215, 131, 247, 5, 0, 0, 0]
    ),
    ("deflate", [120, 156, 11, 113, 13, 14, 225, 2, 0, 4, 104, 1, 75]),
    ("br", [11, 2, 128, 84, 69, 83, 84, 10, 3]),
  ]

  @Test(
    "a body in a coding the request offered arrives decoded; one in a coding it did not is left as it is"
  )
  func contentCodings() async throws {
    for (coding, bytes) in Self.coded {
      let server = try LoopbackServer { request, response in
        let offered = (request.headers["Accept-Encoding"] ?? "").lowercased()
          .split(separator: ",").map {
            $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces)
          }
        guard offered.contains(coding) else {
          return try await response.send(headers: ["X-Offered": "no"], text: "TEST\n")
        }
        try await response.send(headers: ["Content-Encoding": coding], body: Data(bytes))
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL)
      let answer = try await client.response(for: Request<String>(path: "x"))
      #expect(answer.value == "TEST\n", "\(coding)")
      // gzip and deflate are offered by every transport; br where the libcurl below decodes
      // it (Debian's does), by CurlTransport and FoundationNetworking alike.
      #if canImport(FoundationNetworking)
        let offered = coding != "br" || Curl.decodedCodings.contains("br")
        #expect((answer.response.headers["X-Offered"] == nil) == offered, "\(coding)")
      #endif
    }
  }

  @Test("bytes that are not HTTP at all are badServerResponse, not a hang or an HTTP/0.9 body")
  func notHTTP() async throws {
    let server = try raw("FOOBAR\r\n\r\n")
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: "x"))
    }
    if sendsOverCurl(client) {
      #expect(error?.urlErrorCode == .badServerResponse, "\(String(describing: error))")
    }
  }

  @Test("repeated fields: the server's reach the caller in order, the caller's reach the server")
  func repeatedFields() async throws {
    let server = try LoopbackServer { request, response in
      var headers: HTTPHeaders = [:]
      headers.add("X-Test", "one")
      headers.add("X-Test", "two")
      let sent = request.headers.values(for: "X-Sent").joined(separator: ", ")
      try await response.send(headers: headers, text: sent)
    }
    defer { server.stop() }
    var headers: HTTPHeaders = [:]
    headers.add("X-Sent", "one")
    headers.add("X-Sent", "two")
    let answer = try await HTTPClient(baseURL: server.baseURL).response(
      for: Request<String>(path: "x", headers: headers))
    // A repeated field and the same values joined by commas are one field (RFC 9110 §5.3):
    // URLRequest joins a request's with a bare comma, and URLSession a response's.
    #expect(Self.listed(answer.value) == ["one", "two"])
    #expect(answer.response.headers.values(for: "X-Test").flatMap(Self.listed) == ["one", "two"])
  }

  /// The members of a comma-separated field value.
  static func listed(_ value: String) -> [String] {
    value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
  }

  @Test(
    "an empty 200 to HEAD, GET, PUT, POST and DELETE is an empty body",
    arguments: [HTTPMethod.head, .get, .put, .post, .delete])
  func emptyAnswers(method: HTTPMethod) async throws {
    let server = try LoopbackServer { request, response in
      try await response.send(headers: ["X-Method": request.method])
    }
    defer { server.stop() }
    let answer = try await HTTPClient(baseURL: server.baseURL).response(
      for: Request<Data>(method: method, path: "200"))
    #expect(answer.response.status == 200 && answer.value.isEmpty)
    #expect(answer.response.headers["X-Method"] == method.rawValue)
  }

  @Test("two paths redirecting to each other fail after the default 10 hops, with 11 requests")
  func redirectLoop() async throws {
    let requests = Locked(0)
    let server = try LoopbackServer { request, response in
      requests.withLock { $0 += 1 }
      let next = request.path == "/a" ? "/b" : "/a"
      try await response.send(status: 301, headers: ["Location": next])
    }
    defer { server.stop() }
    let error = await #expect(throws: HTTPError.self) {
      try await HTTPClient(baseURL: server.baseURL).send(Request<Data>(path: "a"))
    }
    #expect(error?.urlErrorCode == .httpTooManyRedirects, "\(String(describing: error))")
    #expect(requests.withLock { $0 } == 11)
  }
}
