import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Joining base URLs, paths and queries")
struct URLBuildingTests {
  func url(base: String, path: String, query: Query = Query()) throws -> String {
    let client = makeClient(baseURL: URL(string: base)!)
    let request = try client.urlRequest(for: Request<Data>(path: path, query: query))
    return try #require(request.url?.absoluteString)
  }

  @Test(
    "joins with exactly one slash whatever the slashes at the joint",
    arguments: [
      ("https://api.example.com/3", "movie/popular"),
      ("https://api.example.com/3", "/movie/popular"),
      ("https://api.example.com/3/", "movie/popular"),
      ("https://api.example.com/3/", "/movie/popular"),
      ("https://api.example.com/3//", "//movie/popular"),
    ])
  func joinsSlashes(base: String, path: String) throws {
    #expect(try url(base: base, path: path) == "https://api.example.com/3/movie/popular")
  }

  @Test("joins to a base URL without a path")
  func baseWithoutPath() throws {
    #expect(
      try url(base: "https://api.example.com", path: "movie") == "https://api.example.com/movie")
    #expect(
      try url(base: "https://api.example.com/", path: "/movie") == "https://api.example.com/movie")
  }

  @Test("an empty path is the base URL itself")
  func emptyPath() throws {
    #expect(try url(base: "https://api.example.com/3/", path: "") == "https://api.example.com/3/")
  }

  @Test("keeps the base URL's port and its own query items first")
  func baseQueryAndPort() throws {
    let joined = try url(
      base: "http://127.0.0.1:8080/v1?api_key=abc", path: "items", query: ["page": 2])
    #expect(joined == "http://127.0.0.1:8080/v1/items?api_key=abc&page=2")
  }

  @Test("an absolute http(s) URL as the path replaces the base URL")
  func absolutePath() throws {
    let joined = try url(
      base: "https://api.example.com/3", path: "https://cdn.example.com/next?cursor=x%2By",
      query: ["page": 2])
    #expect(joined == "https://cdn.example.com/next?cursor=x%2By&page=2")
  }

  @Test("the base URL's query items (an API key) do not go to an absolute URL; to a path they do")
  func baseQueryStaysWithBase() throws {
    let base = "https://api.example.com/3?api_key=secret"
    #expect(
      try url(base: base, path: "https://cdn.example.com/next", query: ["page": 2])
        == "https://cdn.example.com/next?page=2")
    #expect(
      try url(base: base, path: "movie/1", query: ["page": 2])
        == "https://api.example.com/3/movie/1?api_key=secret&page=2")
  }

  @Test(
    "a scheme in capitals, in the base URL or an absolute path, goes out in lower case",
    arguments: [
      ("HTTP://api.example.com/3", "movie", "http://api.example.com/3/movie"),
      ("Https://api.example.com", "movie", "https://api.example.com/movie"),
      ("https://api.example.com", "HTTPS://cdn.example.com/x", "https://cdn.example.com/x"),
      ("https://api.example.com", "http://cdn.example.com/x", "http://cdn.example.com/x"),
    ])
  func schemeInCapitals(base: String, path: String, expected: String) throws {
    #expect(try url(base: base, path: path) == expected)
  }

  @Test("percent-encodes spaces and non-ASCII in the path and keeps existing escapes")
  func pathEncoding() throws {
    #expect(
      try url(base: "https://h.example/3", path: "search/Amélie & co/50%25")
        == "https://h.example/3/search/Am%C3%A9lie%20&%20co/50%25")
  }

  @Test("query items in the path come before the endpoint's")
  func pathQuery() throws {
    #expect(
      try url(base: "https://h.example", path: "list?sort=asc desc", query: ["page": 1])
        == "https://h.example/list?sort=asc%20desc&page=1")
  }

  @Test(
    "a path that cannot form a URL is an invalid request naming the problem",
    arguments: [
      ("movie/%zz", "%XX"),
      ("movie/50%", "%XX"),
      ("movie\r\nHost: evil", "CR or LF"),
      ("movie/\u{0}", "control character"),
      ("movie#top", "fragment"),
      ("ftp://files.example/x", "only http and https"),
      ("movie/../../admin", "'..' segment"),
      ("./movie", "'.' or '..'"),
    ])
  func badPaths(path: String, expected: String) async throws {
    let transport = RefusingTransport()
    let client = makeClient(transport: transport)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: path))
    }
    let reason = try #require(error?.invalidRequestReason)
    #expect(reason.contains(expected), "\(reason)")
    #expect(transport.sentCount == 0)
  }

  @Test(
    "a base URL that is not absolute http(s) is an invalid request",
    arguments: ["file:///tmp/x", "/relative/only", "mailto:someone@example.com"])
  func badBaseURL(base: String) throws {
    let client = makeClient(baseURL: URL(string: base)!)
    let error = #expect(throws: HTTPError.self) {
      try client.urlRequest(for: Request<Data>(path: "movie"))
    }
    #expect(error?.invalidRequestReason?.contains("base URL") == true)
  }

  @Test(
    "a segment interpolation keeps user input inside one segment",
    arguments: [
      ("What?", "What%3F"), ("50%20off", "50%2520off"), ("a/b", "a%2Fb"), ("#1", "%231"),
      ("...", "..."), (".a", ".a"), ("Amélie", "Am%C3%A9lie"), ("a.b~c", "a.b~c"),
    ])
  func segmentInterpolation(value: String, encoded: String) throws {
    let joined = try url(base: "https://h.example/3", path: "search/\(segment: value)/credits")
    #expect(joined == "https://h.example/3/search/\(encoded)/credits")
  }

  /// RFC 3986 §2.3 and §6.2.2 make `%2E` the same as `.`, and the WHATWG URL standard reads
  /// `%2e%2e`, `.%2e` and `%2e.` as `..`: nginx, Go's ServeMux and Node resolve them, so
  /// `users/%2E%2E/admin` reached `/admin`. A `\(segment:)` value of `..` was sent so.
  @Test(
    "a dot segment written with %2E, or a \\(segment:) value of '.' or '..', is refused",
    arguments: [
      "users/\(segment: "..")/admin", "users/\(segment: ".")/x", "users/%2E%2E/admin",
      "users/%2e./admin", "users/.%2E/admin", "users/%2e/x", "https://h.example/a/%2E%2E/b",
      "users/%2E%2E?page=1",
    ])
  func encodedDotSegment(path: String) async throws {
    let transport = RefusingTransport()
    let client = makeClient(transport: transport)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: path))
    }
    let reason = try #require(error?.invalidRequestReason)
    #expect(reason.contains("'.' or '..' segment"), "\(reason)")
    #expect(transport.sentCount == 0)
  }

  @Test("a segment with dots and more, or %2E beside other text, is sent (the good path)")
  func dotsInsideSegment() throws {
    #expect(
      try url(base: "https://h.example/3", path: "a/%2E%2E%2E/\(segment: "..x")/v1.2/%2Ea")
        == "https://h.example/3/a/%2E%2E%2E/..x/v1.2/%2Ea")
  }

  @Test(
    "an empty segment interpolation is an invalid request naming it; nothing is sent",
    arguments: [
      "users/\(segment: "")/posts", "users/\(segment: "")", "\(segment: "")/posts",
      "users/\(segment: "")?page=2", "https://other.example/users/\(segment: "")/posts",
    ])
  func emptySegment(path: String) async throws {
    let stub = StubTransport()
    let client = makeClient(transport: stub)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: path))
    }
    let reason = try #require(error?.invalidRequestReason)
    #expect(reason.contains("\\(segment:) value in the path is empty"), "\(reason)")
    #expect(stub.requests.isEmpty)
    #expect(throws: HTTPError.self) { try client.urlRequest(for: Request<Data>(path: path)) }
  }

  @Test("a segment of one space or a zero is no empty segment, and is sent")
  func blankButNotEmptySegment() async throws {
    let stub = StubTransport().fallback { _ throws(HTTPError) in .status(200) }
    let client = makeClient(transport: stub)
    _ = try await client.send(Request<Data>(path: "users/\(segment: " ")/posts"))
    _ = try await client.send(Request<Data>(path: "users/\(segment: 0)/posts"))
    #expect(
      stub.requests.map(\.url?.absoluteString) == [
        "https://api.example.com/3/users/%20/posts", "https://api.example.com/3/users/0/posts",
      ])
  }

  @Test("a segment interpolation takes any describable value")
  func segmentOfInt() throws {
    #expect(
      try url(base: "https://h.example", path: "movie/\(segment: 42)")
        == "https://h.example/movie/42")
  }

  @Test(
    "a path refused as no URL keeps its credentials out of the error; nothing is sent",
    arguments: [
      "movie?api_key=S3CRET-VALUE#top", "https://user:S3CRET-VALUE@api.example.com/x#frag",
      "ftp://user:S3CRET-VALUE@files.example.com/file", "search?q=%zz&token=S3CRET-VALUE",
      "a/../b?access_token=S3CRET-VALUE", "me?client=S3CRET-VALUE#x",
    ])
  func refusedPathRedacted(path: String) async throws {
    let stub = StubTransport()
    var configuration = HTTPClient.Configuration()
    configuration.redactedNames = ["Client"]
    let client = makeClient(transport: stub, configuration: configuration)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<Data>(path: path))
    }
    let reason = try #require(error?.invalidRequestReason)
    #expect(!reason.contains("S3CRET"), "\(reason)")
    #expect(!"\(String(describing: error))".contains("S3CRET"))
    #expect(stub.requests.isEmpty)
  }
}
