import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// The snippets of the articles "Paging and parallel requests", "Middleware" and "Transfers
/// and streaming", run against a stub.
@Suite("Documentation: paging, middleware, transfers")
struct ArticleRequestsTests {
  func client(_ stub: StubTransport, _ configuration: HTTPClient.Configuration = .init())
    -> HTTPClient
  {
    HTTPClient(
      baseURL: URL(string: "https://shelf.example/v1")!, configuration: configuration,
      transport: stub)
  }

  @Test("paging: pages, items, and parallel requests")
  func paging() async throws {
    let stub = StubTransport().fallback { request throws(HTTPError) in
      let query = request.url?.query ?? ""
      if let page = Int(query.split(separator: "=").last ?? ""), query.hasPrefix("page=") {
        let next = page < 3 ? "\(page + 1)" : "null"
        return .json(#"{"books":[{"id":\#(page),"title":"Dune \#(page)"}],"nextPage":\#(next)}"#)
      }
      let id = request.url?.lastPathComponent ?? "0"
      return .json(#"{"id":\#(id),"title":"Book \#(id)"}"#)
    }
    let client = client(stub)
    var counts: [Int] = []
    for try await page in client.pages(ShelfApi.books(page: 1)) {
      counts.append(page.books.count)
    }
    var seen: [String] = []
    for try await book in client.pages(ShelfApi.books(page: 1)).items(\.books) {
      seen.append(book.title)
      if book.title == "Dune 2" { break }  // no page is fetched after the loop stops
    }
    #expect(counts == [1, 1, 1])
    #expect(seen == ["Dune 1", "Dune 2"])

    let books = try await client.send(
      all: [1, 2, 3].map { BookDetails(id: $0) }, maximumConcurrent: 8)
    let outcomes = await client.results(
      for: [4, 5].map { BookDetails(id: $0) }, maximumConcurrent: 2)
    #expect(books.map(\.id) == [1, 2, 3])
    #expect(outcomes.map { (try? $0.get())?.id } == [4, 5])
  }

  @Test("middleware: the usual order; a refresh replays with the new token")
  func middleware() async throws {
    let tokens = Tokens()
    let lines = Locked<[String]>([])
    let stub = StubTransport().fallback { request throws(HTTPError) in
      guard request.value(forHTTPHeaderField: "Authorization") == "Bearer renewed-token" else {
        return StubResponse(status: 401, text: "expired")
      }
      let version = request.value(forHTTPHeaderField: "X-Client-Version") ?? "none"
      return .json(#"{"id":1,"title":"\#(version)"}"#)
    }
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [
      RetryPolicy(),
      BearerAuthentication(provider: tokens),
      ClientVersion(),
      LoggingMiddleware(level: .basic) { line in lines.withLock { $0.append(line) } },
    ]
    let book = try await client(stub, configuration).send(BookDetails(id: 1))
    #expect(book.title == "2.4")
    #expect(lines.withLock { $0.count } == 4, "one line out and one back per attempt")
  }

  @Test("middleware: BodyBytes counts a sent body and a streamed one, chunk by chunk")
  func bodyBytes() async throws {
    let stub = StubTransport()
      .on(.get, "/books/1", StubResponse(text: "{\"id\":1,\"title\":\"Dune\"}"))
      .on(.get, "/exports/books.ndjson", .chunks([Data("12345".utf8), Data("678".utf8)]))
    let counted = Locked<[Int]>([])
    var configuration = HTTPClient.Configuration()
    configuration.middleware = [BodyBytes { count in counted.withLock { $0.append(count) } }]
    let client = client(stub, configuration)
    _ = try await client.send(BookDetails(id: 1))
    #expect(counted.withLock { $0 } == [23])
    counted.withLock { $0 = [] }
    var read = 0
    for try await chunk in try await client.bytes(Request<Data>(path: "exports/books.ndjson")) {
      read += chunk.count
    }
    #expect(read == 8)
    #expect(counted.withLock { $0 } == [0, 5, 3])
  }

  @Test("transfers: a download to disk, a byte stream's lines, server-sent events")
  func transfers() async throws {
    let stub = StubTransport()
      .on(.get, "/covers/7.jpg", StubResponse(text: "jpeg bytes"))
      .on(
        .get, "/exports/books.ndjson",
        StubResponse(text: "{\"id\":1,\"title\":\"Dune\"}\n{\"id\":2,\"title\":\"Emma\"}\n")
      )
      .on(
        .get, "/chat/stream",
        StubResponse(
          headers: ["Content-Type": "text/event-stream"],
          text:
            "event: delta\ndata: {\"text\":\"Hel\"}\n\nevent: delta\ndata: {\"text\":\"lo\"}\n\n"))
    let client = client(stub)
    let scratch = FileManager.default.temporaryDirectory
      .appendingPathComponent("courier-article-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }

    let destination = scratch.appendingPathComponent("cover.jpg")
    var saved: URL?
    for try await event in client.download(Request<Data>(path: "covers/7.jpg"), to: destination) {
      switch event {
      case .progress(let progress): _ = progress.completedBytes
      case .completed(let file): saved = file.url
      }
    }
    #expect(saved == destination)
    #expect(try String(contentsOf: destination, encoding: .utf8) == "jpeg bytes")

    var titles: [String] = []
    let stream = try await client.bytes(Request<Data>(path: "exports/books.ndjson"))
    for try await line in stream.lines {
      let book = try JSONDecoder().decode(Book.self, from: Data(line.utf8))
      titles.append(book.title)
    }
    #expect(titles == ["Dune", "Emma"])

    var text = ""
    let events = client.events(Request<Data>(path: "chat/stream"), reconnection: .never)
    for try await event in events {
      if event.event == "delta" { text += try event.decode(Delta.self).text }
    }
    #expect(text == "Hello")
  }
}
