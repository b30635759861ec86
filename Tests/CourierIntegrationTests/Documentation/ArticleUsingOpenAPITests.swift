#if OpenAPI
  import Courier
  import CourierTesting
  import Foundation
  import OpenAPIRuntime
  import Testing

  /// The snippets of the article "Using a swift-openapi-generator client", over the loopback
  /// server, with the client generated from Tests/OpenAPI/openapi.yaml.
  @Suite("Documentation: using a swift-openapi-generator client", .timeLimit(.minutes(1)))
  struct ArticleUsingOpenAPITests {
    @Test("the article's client, its streamed calls, and the error it catches")
    func snippets() async throws {
      let seen = Locked<[String]>([])
      let loopback = try Loopback { request, response in
        seen.withLock { $0.append("\(request.path) \(request.headers["X-API-Key"] ?? "-")") }
        switch request.path {
        case "/3/movies/42":
          try await response.send(json: #"{"id":42,"title":"Up"}"#)
        case "/3/movies/export":
          try await response.send(
            headers: ["Content-Type": "application/jsonl"],
            text: #"{"id":1,"title":"Alien"}"# + "\n")
        default:
          try await response.send(json: #"{"bytes":\#(request.body.count)}"#)
        }
      }
      defer { loopback.stop() }
      let key = "k-1"
      let firstPart: [UInt8] = Array("part".utf8)
      var printed: [String] = []
      func print(_ value: Any) { printed.append("\(value)") }

      // The snippets, with the loopback server's URL:
      var configuration = HTTPClient.Configuration()
      configuration.middleware = [
        APIKeyAuthentication(key: key, in: .header("X-API-Key")), RetryPolicy(),
      ]
      configuration.cookies = CookieJar()
      let http = HTTPClient(baseURL: loopback.client.baseURL, configuration: configuration)
      let api = Client(serverURL: http.baseURL, transport: OpenAPITransport(client: http))

      let movie = try await api.getMovie(path: .init(id: 42)).ok.body.json

      let export = try await api.exportMovies().ok.body.applicationJsonl
      for try await movie in export.asDecodedJSONLines(of: Components.Schemas.Movie.self) {
        print(movie.title)
      }

      let (chunks, producer) = AsyncStream<ArraySlice<UInt8>>.makeStream()
      let upload = HTTPBody(chunks, length: .unknown, iterationBehavior: .single)
      async let summary = api.importMovies(body: .binary(upload))
      producer.yield(ArraySlice(firstPart))
      producer.finish()
      print(try await summary.ok.body.json.bytes)

      #expect(movie.title == "Up")
      #expect(printed == ["Alien", "4"])
      #expect(
        seen.withLock { $0 } == [
          "/3/movies/42 k-1", "/3/movies/export k-1", "/3/movies/import k-1",
        ])

      // The error snippet, against a port where nothing listens (and no RetryPolicy):
      let closed = URL(string: "http://127.0.0.1:\(try LoopbackServer.closedPort())/3")!
      let refused = Client(
        serverURL: closed, transport: OpenAPITransport(client: HTTPClient(baseURL: closed)))
      var timedOut = false
      var underlying: HTTPError?
      do {
        _ = try await refused.getMovie(path: .init(id: 42))
      } catch let error as ClientError {
        if case .timedOut? = error.underlyingError as? HTTPError { timedOut = true }
        underlying = error.underlyingError as? HTTPError
      }
      #expect(!timedOut)
      guard case .transport? = underlying else {
        Issue.record("expected a transport error, got \(String(describing: underlying))")
        return
      }
    }
  }
#endif
