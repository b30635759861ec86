import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// The README's examples, compiled and run against a stub, so the documentation cannot
/// drift from the API. Since the README became a tour (issue 29), the endpoint enum, the
/// configuration and `send`, the error `switch` and paging are the README's "A tour"; the
/// `Request<…>` lines are the article "Getting started"'s; the `urlRequest(for:)` line, the
/// `UserAgent` middleware and the `Session` provider were the old README's (the articles show
/// their own versions); `ClientID` is the article "Security"'s and the idle timeout snippet the
/// article "Timeouts and cancellation"'s.
@Suite("README examples")
struct ReadmeExamplesTests {
  struct Film: Decodable, Sendable { let id: Int }

  struct FilmPage: Decodable, Sendable {
    let page: Int
    let totalPages: Int
    let results: [Film]
  }

  enum FilmApi: Endpoint {
    typealias Response = FilmPage
    case popular(page: Int)
    case search(text: String, year: Int?)

    var path: String {
      switch self {
      case .popular: "movie/popular"
      case .search: "search/movie"
      }
    }

    var query: Query {
      switch self {
      case .popular(let page): ["page": page]
      case .search(let text, let year): ["query": text, "year": year]
      }
    }
  }

  struct Rating: Encodable, Sendable { let value: Double }

  @Test("paging as the README shows it")
  func paging() async throws {
    let stub = StubTransport().fallback { request throws(HTTPError) in
      let page = request.url?.query?.split(separator: "=").last.map(String.init) ?? "1"
      return .json(#"{"page":\#(page),"total_pages":3,"results":[{"id":\#(page)}]}"#)
    }
    let configuration = HTTPClient.Configuration()
    configuration.decoder.keyDecodingStrategy = .convertFromSnakeCase
    let client = HTTPClient(
      baseURL: URL(string: "https://api.themoviedb.org/3")!, configuration: configuration,
      transport: stub)
    var pages: [Int] = []
    for try await page in client.pages(FilmApi.popular(page: 1)) {
      pages.append(page.results.count)
    }
    var ids: [Int] = []
    for try await movie in client.pages(FilmApi.popular(page: 1)).items(\.results) {
      ids.append(movie.id)
      if movie.id == 2 { break }
    }
    #expect(pages == [1, 1, 1])
    #expect(ids == [1, 2])
    #expect(stub.requests.count == 5)
  }

  struct TMDBError: Decodable { let statusMessage: String }
}

extension ReadmeExamplesTests.FilmApi: PagedEndpoint {
  func nextPage(after page: ReadmeExamplesTests.FilmPage, response: HTTPResponse)
    -> ReadmeExamplesTests.FilmApi?
  {
    page.page < page.totalPages ? .popular(page: page.page + 1) : nil
  }
}

extension ReadmeExamplesTests {

  @Test("the quick start sends, inspects and handles errors as the README shows")
  func quickStart() async throws {
    let token = "t0ken"
    let stub = StubTransport()
      .on(.get, "/movie/popular", .json(#"{"page":1,"total_pages":1,"results":[{"id":550}]}"#))
      .on(.post, "/movie/550/rating", .status(201))
      .on(.get, "/movie/0", .json(#"{"status_message":"not found"}"#, status: 404))
      .fallback { _ throws(HTTPError) in .json(#"{"id":550}"#) }

    var configuration = HTTPClient.Configuration()
    configuration.headers["Authorization"] = "Bearer \(token)"
    configuration.timeout = .seconds(10)
    configuration.decoder.keyDecodingStrategy = .convertFromSnakeCase

    let client = HTTPClient(
      baseURL: URL(string: "https://api.themoviedb.org/3")!, configuration: configuration,
      transport: stub)
    let page = try await client.send(FilmApi.popular(page: 1))
    let full = try await client.response(for: FilmApi.popular(page: 2))
    #expect(page.results.first?.id == 550)
    #expect(full.status == 200)

    let movie = try await client.send(Request<Film>(path: "movie/550"))
    try await client.send(
      Request<EmptyResponse>(
        method: .post, path: "movie/550/rating", body: .json(Rating(value: 8.5))))
    #expect(movie.id == 550)

    let request = try client.urlRequest(for: FilmApi.search(text: "Amélie", year: nil))
    #expect(
      request.url?.absoluteString == "https://api.themoviedb.org/3/search/movie?query=Am%C3%A9lie")
    #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer t0ken")

    var message = ""
    do {
      _ = try await client.send(Request<Film>(path: "movie/0"))
    } catch .unacceptableStatus(let response) where response.status == 404 {
      message =
        HTTPError.unacceptableStatus(response).decodeBody(
          as: TMDBError.self, using: client.configuration.decoder)?.statusMessage ?? ""
    } catch {
      Issue.record("\(error)")
    }
    #expect(message == "not found")
  }

  @Test("the tour's error switch, parallel fetch and cancellation, as README.md shows them")
  func tourSnippets() async throws {
    typealias Movie = Film
    let answerLater = Gate()  // the page is answered only after the test ends
    let stub = StubTransport()
      .on(.get, "/movie/popular") { _ throws(HTTPError) in
        await answerLater.wait()
        return .json(#"{"page":1,"total_pages":1,"results":[]}"#)
      }
      .on(.get, "/movie/404", .json(#"{"status_message":"not found"}"#, status: 404))
      .on(.get, "/movie/500", .json(#"{"status_message":"try later"}"#, status: 500))
      .fallback { request throws(HTTPError) in
        .json(#"{"id":\#(request.url?.lastPathComponent ?? "0")}"#)
      }
    let configuration = HTTPClient.Configuration()
    configuration.decoder.keyDecodingStrategy = .convertFromSnakeCase
    let client = HTTPClient(
      baseURL: URL(string: "https://api.themoviedb.org/3")!, configuration: configuration,
      transport: stub)
    let printed = Locked<[String]>([])
    let print = { (line: String) in printed.withLock { $0.append(line) } }

    for id in [404, 500] {
      do {
        let movie = try await client.send(Request<Movie>(path: "movie/\(id)"))
        Issue.record("no error for \(movie)")
      } catch .unacceptableStatus(let response) where response.status == 404 {
        print("no movie \(id)")
      } catch {
        // The API's error payload, read with the client's decoder (its keys are snake_case):
        if let apiError = error.decodeBody(as: TMDBError.self, using: client.configuration.decoder)
        {
          print(apiError.statusMessage)
        } else {
          print("\(error)")  // a sentence a person can act on; credentials are redacted
        }
      }
    }
    #expect(printed.withLock { $0 } == ["no movie 404", "try later"])

    let ids = [3, 1, 2]
    let movies = try await client.send(
      all: ids.map { Request<Movie>(path: "movie/\($0)") }, maximumConcurrent: 8)
    #expect(movies.map(\.id) == ids)

    let task = Task { try await client.send(FilmApi.popular(page: 1)) }
    task.cancel()  // the caller gets HTTPError.cancelled now
    await #expect(throws: HTTPError.cancelled) { try await task.value }
    answerLater.open()
  }

  struct UserAgent: Middleware {
    func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
      -> HTTPResponse
    {
      var request = request
      request.headers["User-Agent"] = "movies/1.0"
      return try await next(request)
    }
  }

  actor Session: CredentialProvider {
    var accessToken = "old"
    func renew() async throws(HTTPError) -> String { "new" }
    func token() async throws(HTTPError) -> String { accessToken }
    func refresh() async throws(HTTPError) -> String {
      accessToken = try await renew()
      return accessToken
    }
  }

  @Test("the middleware section as the README shows it")
  func middleware() async throws {
    let lines = Locked<[String]>([])
    let stub = StubTransport().fallback { request throws(HTTPError) in
      let auth = request.value(forHTTPHeaderField: "Authorization") ?? "-"
      let agent = request.value(forHTTPHeaderField: "User-Agent") ?? "-"
      return StubResponse(status: auth == "Bearer new" ? 200 : 401, text: "\(auth) \(agent)")
    }
    let (events, observer) = HTTPEvent.makeStream()
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      RetryPolicy(),
      BearerAuthentication(provider: Session()),
      UserAgent(),
      LoggingMiddleware(level: .basic) { line in lines.withLock { $0.append(line) } },
    ]
    configuration.observer = observer
    let client = HTTPClient(
      baseURL: URL(string: "https://api.themoviedb.org/3")!, configuration: configuration,
      transport: stub)
    #expect(try await client.send(Request<String>(path: "me")) == "Bearer new movies/1.0")
    #expect(lines.withLock { $0.count } == 4)  // two attempts through the logger, out and back
    var iterator = events.makeAsyncIterator()
    // Both exchanges (the 401, then the retry with the new token) are measured.
    guard case .started = await iterator.next(), case .measured = await iterator.next(),
      case .measured = await iterator.next(), case .finished = await iterator.next()
    else {
      Issue.record("expected started, two measured and finished")
      return
    }
  }

  struct ClientID: Middleware {
    let id: String
    func intercept(_ request: OutgoingRequest, next: MiddlewareNext) async throws(HTTPError)
      -> HTTPResponse
    {
      var request = request
      if request.isToClientOrigin {
        request.urlRequest.setValue(id, forHTTPHeaderField: "X-Client")
        request.markCredential("X-Client")  // redacted everywhere, never sent to another origin
      }
      return try await next(request)
    }
  }

  @Test("Security: a middleware's marked credential is sent home and redacted in errors")
  func markedCredential() async throws {
    let stub = StubTransport().fallback { request throws(HTTPError) in
      // An API that echoes what it got into its error body.
      StubResponse(
        status: 400, text: "bad client \(request.value(forHTTPHeaderField: "X-Client") ?? "-")")
    }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [ClientID(id: "id-SECRET")]
    let client = HTTPClient(
      baseURL: URL(string: "https://api.example.com")!, configuration: configuration,
      transport: stub)
    let error = await #expect(throws: HTTPError.self) {
      try await client.send(Request<String>(path: "x"))
    }
    #expect(error?.response?.text == "bad client id-SECRET")
    #expect(
      error.map { "\($0)" }?.contains("bad client <redacted>") == true,
      "\(String(describing: error))")
  }

  @Test("Timeouts: the idle timeout snippet")
  func idleTimeoutSnippet() async throws {
    let stub = StubTransport().fallback { _ throws(HTTPError) in StubResponse(text: "data: x\n\n") }
    let feed = Request<Data>(path: "feed")
    var configuration = HTTPClient.Configuration()
    configuration.timeout = .seconds(30)  // the whole request, from call to last byte
    configuration.idleTimeout = .seconds(10)  // no byte for 10 s: timedOut, even mid-download
    let client = HTTPClient(
      baseURL: URL(string: "https://api.example.com")!, configuration: configuration,
      transport: stub)
    let stream = try await client.bytes(feed, options: TransferOptions(idleTimeout: .seconds(90)))
    var body = Data()
    for try await chunk in stream { body.append(chunk) }
    #expect(body == Data("data: x\n\n".utf8))
  }
}
