import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A socket path of the test's own, in the temporary directory.
func temporarySocketPath() -> String {
  NSTemporaryDirectory() + "courier-\(UUID().uuidString.prefix(8)).sock"
}

@Suite("Servers on a Unix domain socket (http+unix)", .timeLimit(.minutes(1)))
struct UnixSocketTests {
  /// A server that echoes what it was asked, and redirects `/old` to `/new` on itself.
  private func echo() throws -> LoopbackServer {
    try LoopbackServer(socketPath: temporarySocketPath()) { request, response in
      if request.path == "/v1/old" {
        return try await response.send(status: 302, headers: ["Location": "/v1/new"])
      }
      let query = request.queryValues("all").first ?? "-"
      let host = request.headers["Host"] ?? "-"
      let body = String(decoding: request.body, as: UTF8.self)
      try await response.send(text: "\(request.method) \(request.path) \(query) \(host) \(body)")
    }
  }

  @Test("URL(unixSocketPath:) percent-encodes the path as the host; a relative path is refused")
  func baseURL() {
    let url = URL(unixSocketPath: "/var/run/docker.sock")
    #expect(url?.absoluteString == "http+unix://%2Fvar%2Frun%2Fdocker.sock")
    #expect(url?.host(percentEncoded: false) == "/var/run/docker.sock")
    #expect(URL(unixSocketPath: "/s.sock", secure: true)?.scheme == "https+unix")
    #expect(URL(unixSocketPath: "run/docker.sock") == nil)
  }

  @Test("a socket URL written by hand, or a path too long for a socket, is refused clearly")
  func socketURLRefused() async throws {
    let long = NSTemporaryDirectory() + String(repeating: "s", count: 120) + ".sock"
    let cases: [(URL?, String)] = [
      // The path left unencoded: the host is "var"; written with three slashes: no host.
      (URL(string: "http+unix://var/run/docker.sock"), "names no Unix domain socket"),
      (URL(string: "http+unix:///var/run/docker.sock"), "names no Unix domain socket"),
      (URL(string: "http+unix://docker.sock"), "URL(unixSocketPath:)"),
      (URL(unixSocketPath: long), "\(long.utf8.count) bytes long"),
    ]
    for (url, words) in cases {
      let client = HTTPClient(baseURL: try #require(url))
      let error = await #expect(throws: HTTPError.self) {
        try await client.send(Request<String>(path: "v1/info"))
      }
      let reason = error?.invalidRequestReason ?? "\(String(describing: error))"
      #expect(reason.contains(words), "\(reason)")
    }
  }

  #if canImport(FoundationNetworking)
    @Test("a socket path as long as a socket's address holds is reached")
    func longestSocketPath() async throws {
      let directory = NSTemporaryDirectory() + "courier-\(UUID().uuidString.prefix(8))/"
      let path = directory + String(repeating: "s", count: 107 - directory.utf8.count)
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let server = try LoopbackServer(socketPath: path) { _, response in
        try await response.send(text: "reached")
      }
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      #expect(try await client.send(Request<String>(path: "x")) == "reached")
    }

    @Test("CurlTransport reaches the server over the socket: paths, queries, bodies, redirects")
    func curl() async throws {
      let server = try echo()
      defer { server.stop() }
      let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
      let got = try await client.send(
        Request<String>(path: "v1/containers/json", query: ["all": "1"]))
      #expect(got == "GET /v1/containers/json 1 localhost ")
      let posted = try await client.send(
        Request<String>(method: .post, path: "v1/create", body: .data(Data("{}".utf8))))
      #expect(posted == "POST /v1/create - localhost {}")
      let moved = try await client.response(for: Request<String>(path: "v1/old"))
      #expect(moved.value == "GET /v1/new - localhost ")
      #expect(moved.response.url?.absoluteString.hasPrefix("http+unix://") == true)
      #expect(server.requestCount == 4)
    }

    @Test("as a hurried user: half an endless stream read over the socket, then let go")
    func hurriedUser() async throws {
      let left = Signal()
      let server = try LoopbackServer(socketPath: temporarySocketPath()) { _, response in
        try await response.writeHead(headers: ["Content-Type": "text/event-stream"])
        // Writes until the client has gone (a write fails) or the connection ends.
        while (try? await response.write(Data("data: tick\n\n".utf8))) != nil {}
        await response.clientDisconnected()
        left.fire()
      }
      defer { server.stop() }
      do {
        // A client made for one call, its stream read for a while and dropped, no close().
        let client = HTTPClient(baseURL: server.baseURL, transport: CurlTransport())
        var seen = 0
        for try await _ in try await client.bytes(Request<Data>(path: "events")) {
          seen += 1
          if seen == 3 { break }
        }
      }
      await left.wait()  // the server sees the connection go: nothing holds it
      #expect(server.requestCount == 1)
    }

    @Test("a socket that is not there, or a file that is no socket, fails naming path and why")
    func nobodyListening() async throws {
      let missing = temporarySocketPath()
      let file = temporarySocketPath()
      try Data("not a socket".utf8).write(to: URL(fileURLWithPath: file))
      defer { try? FileManager.default.removeItem(atPath: file) }
      let cases = [
        (missing, "there is no socket"), (file, "nothing listens on it, or it is no socket"),
      ]
      for (path, why) in cases {
        let client = HTTPClient(baseURL: URL(unixSocketPath: path)!, transport: CurlTransport())
        let error = await #expect(throws: HTTPError.self) {
          try await client.send(Request<String>(path: "x"))
        }
        #expect(error?.urlErrorCode == .cannotConnectToHost)
        // Not libcurl's "Failed to connect to localhost port 80", the URL it sends over it.
        let text = "\(String(describing: error))"
        #expect(text.contains("Unix domain socket \(path): \(why)"), "\(text)")
        #expect(!text.contains("port 80"), "\(text)")
      }
    }
  #endif

  @Test("URLSessionTransport refuses an http+unix URL clearly, and sends nothing")
  func urlSessionRefuses() async throws {
    let server = try echo()
    defer { server.stop() }
    let client = HTTPClient(baseURL: server.baseURL, transport: URLSessionTransport())
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(path: "v1/info"))
    }
    #expect(error?.invalidRequestReason?.contains("Unix domain socket") == true)
    #expect(server.requestCount == 0)
  }
}
