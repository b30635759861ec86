import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@Suite("Requests reach a real server exactly as built", .timeLimit(.minutes(1)))
struct RoundTripTests {
  let echo: LoopbackServer.Handler = { request, response in
    try await response.send(encoding: request.echo)
  }

  @Test("the server reads back every query value exactly as given")
  func queryRoundTrip() async throws {
    let values = ["a+b", "a&b=c", "a/b?c", "two words", "🎬 Amélie", "100%", "", "#x", "semi;colon"]
    var query = Query()
    for value in values { query.append("q", value) }
    query.append("ids", [1, 2])
    query.append("adult", false)
    let loopback = try Loopback(handler: echo)
    defer { loopback.stop() }
    let client = loopback.client
    let seen = try await client.send(Request<Echo>(path: "search", query: query))
    #expect(seen.query.filter { $0[0] == "q" }.map { $0[1] } == values)
    #expect(seen.query.filter { $0[0] == "ids" }.map { $0[1] } == ["1", "2"])
    #expect(seen.query.last == ["adult", "false"])
    #expect(seen.path == "/3/search")
  }

  @Test("a path with spaces and non-ASCII characters arrives decoded as given")
  func pathRoundTrip() async throws {
    let loopback = try Loopback(handler: echo)
    defer { loopback.stop() }
    let client = loopback.client
    let seen = try await client.send(Request<Echo>(path: "/search/Amélie & co"))
    #expect(seen.path == "/3/search/Amélie & co")
    let segment = try await client.send(Request<Echo>(path: "search/\(segment: "What? 50%/off")"))
    #expect(segment.target == "/3/search/What%3F%2050%25%2Foff")
    #expect(segment.path == "/3/search/What? 50%/off")
  }

  @Test("JSON and form bodies arrive with their content types, and headers with theirs")
  func bodiesAndHeaders() async throws {
    var configuration = HTTPClient.Configuration()
    configuration.headers = ["X-Client": "courier-tests", "Accept-Language": "en"]
    let loopback = try Loopback(configuration: configuration, handler: echo)
    defer { loopback.stop() }
    let client = loopback.client
    let json = try await client.send(
      Request<Echo>(
        method: .post, path: "rating", headers: ["accept-language": "fr"],
        body: .json(["value": 8])))
    #expect(json.method == "POST")
    #expect(json.body == #"{"value":8}"#)
    #expect(json.headers["content-type"] == "application/json")
    #expect(json.headers["accept"] == "application/json")
    #expect(json.headers["x-client"] == "courier-tests")
    #expect(json.headers["accept-language"] == "fr")

    let form = try await client.send(
      Request<Echo>(method: .put, path: "login", body: .form(["user": "a b", "pass": "p&s=+"])))
    #expect(form.method == "PUT")
    #expect(form.body == "user=a%20b&pass=p%26s%3D%2B")
    #expect(form.headers["content-type"] == "application/x-www-form-urlencoded")
  }

  @Test("a header with an empty value arrives, empty, beside one with a value")
  func emptyHeaderValue() async throws {
    let loopback = try Loopback { request, response in
      let empty = request.headers.values(for: "X-Empty")
      try await response.send(text: "\(empty)|\(request.headers["X-Full"] ?? "-")")
    }
    defer { loopback.stop() }
    let seen = try await loopback.client.send(
      Request<String>(path: "h", headers: ["X-Empty": "", "X-Full": "yes"]))
    #expect(seen == "[\"\"]|yes")
  }

  /// RFC 9110 §5.5: a field value has no whitespace around it, so one of only spaces or tabs
  /// is empty. URLSessionTransport on Linux left it out: FoundationNetworking's libcurl reads
  /// "Name: " as "remove this field".
  @Test(
    "a header of only spaces or tabs arrives, empty, on every transport",
    arguments: [" ", "\t", " \t  "])
  func blankHeaderValue(value: String) async throws {
    let loopback = try Loopback { request, response in
      let blank = request.headers.values(for: "X-Blank")
      try await response.send(text: "\(blank)|\(request.headers["X-Full"] ?? "-")")
    }
    defer { loopback.stop() }
    let seen = try await loopback.client.send(
      Request<String>(path: "h", headers: ["X-Blank": value, "X-Full": " yes "]))
    #expect(seen == "[\"\"]|yes")
  }

  @Test("204 No Content decodes as EmptyResponse; HEAD and DELETE work")
  func emptyAnswers() async throws {
    let loopback = try Loopback { request, response in
      try await response.send(status: request.method == "HEAD" ? 200 : 204)
    }
    defer { loopback.stop() }
    let client = loopback.client
    #expect(
      try await client.send(Request<EmptyResponse>(method: .delete, path: "rating"))
        == EmptyResponse())
    let head = try await client.response(for: Request<Data>(method: .head, path: "x"))
    #expect(head.status == 200)
    #expect(head.value.isEmpty)
  }

  @Test("200 concurrent sends are all answered, each with its own answer")
  func concurrentSends() async throws {
    let loopback = try Loopback { request, response in
      let id = Int(request.path.split(separator: "/").last ?? "") ?? -1
      try await response.send(encoding: Movie(id: id, title: "Movie \(id)"))
    }
    defer { loopback.stop() }
    let server = loopback.server
    let client = loopback.client
    let movies = try await withThrowingTaskGroup(of: Movie.self) { group in
      for id in 0..<200 {
        group.addTask { try await client.send(Request<Movie>(path: "movie/\(id)")) }
      }
      return try await group.reduce(into: [Movie]()) { $0.append($1) }
    }
    #expect(Set(movies.map(\.id)) == Set(0..<200))
    #expect(movies.allSatisfy { $0.title == "Movie \($0.id)" })
    #expect(server.requestCount == 200)
  }

  @Test("bad input is rejected before anything reaches the server")
  func badInputSendsNothing() async throws {
    let loopback = try Loopback(handler: echo)
    defer { loopback.stop() }
    let server = loopback.server
    let client = loopback.client
    let bad: [Request<Data>] = [
      Request(path: "x", headers: ["X-Token": "a\r\nInjected: 1"]),
      Request(path: "x%zz"),
      Request(method: .post, path: "x", body: .json(["value": Double.nan])),
    ]
    for request in bad {
      await #expect(throws: HTTPError.self) { try await client.send(request) }
    }
    #expect(server.requestCount == 0)
    #expect(server.connectionCount == 0)
    _ = try await client.send(Request<Data>(path: "x"))
    #expect(server.requestCount == 1)
  }
}
