import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// TMDB-style pages: `?page=N` with `total_pages` in the body.
struct NumberedPage: Codable, Sendable, Equatable {
  var page: Int
  var totalPages: Int
  var results: [Int]

  enum CodingKeys: String, CodingKey {
    case page
    case totalPages = "total_pages"
    case results
  }
}

struct Popular: PagedEndpoint {
  typealias Response = NumberedPage
  var page = 1
  var path: String { "movie/popular" }
  var query: Query { ["page": page] }

  func nextPage(after page: NumberedPage, response: HTTPResponse) -> Popular? {
    page.page < page.totalPages ? Popular(page: page.page + 1) : nil
  }
}

/// Cursor pages: `next_cursor` in the body.
struct CursorPage: Codable, Sendable {
  var items: [String]
  var nextCursor: String?

  enum CodingKeys: String, CodingKey {
    case items
    case nextCursor = "next_cursor"
  }
}

struct Events: PagedEndpoint {
  typealias Response = CursorPage
  var cursor: String?
  var path: String { "events" }
  var query: Query { ["cursor": cursor] }

  func nextPage(after page: CursorPage, response: HTTPResponse) -> Events? {
    page.nextCursor.map { Events(cursor: $0) }
  }
}

@Suite("Paging as an AsyncSequence", .timeLimit(.minutes(1)))
struct PagingTests {
  /// Pages 1...total of 3 items each, numbered by page.
  static func numbered(total: Int) -> LoopbackServer.Handler {
    { request, response in
      let page = Int(request.queryValues("page").first ?? "1") ?? 1
      let body = NumberedPage(
        page: page, totalPages: total, results: [1, 2, 3].map { page * 10 + $0 })
      try await response.send(encoding: body)
    }
  }

  @Test("page numbers: every page in order, then the end")
  func pageNumbers() async throws {
    let loopback = try Loopback(handler: Self.numbered(total: 3))
    defer { loopback.stop() }
    var pages: [Int] = []
    for try await page in loopback.client.pages(Popular()) {
      pages.append(page.page)
    }
    #expect(pages == [1, 2, 3])
    #expect(loopback.server.requestCount == 3)
  }

  @Test("cursors in the body: followed until there is none")
  func cursors() async throws {
    let chain = ["": "c1", "c1": "c2", "c2": nil] as [String: String?]
    let loopback = try Loopback { request, response in
      let cursor = request.queryValues("cursor").first ?? ""
      let next = chain[cursor] ?? nil
      try await response.send(encoding: CursorPage(items: ["after-\(cursor)"], nextCursor: next))
    }
    defer { loopback.stop() }
    var items: [String] = []
    for try await item in loopback.client.pages(Events()).items(\.items) {
      items.append(item)
    }
    #expect(items == ["after-", "after-c1", "after-c2"])
  }

  @Test("Link headers: relative next links with several links and quoted parameters")
  func linkHeaders() async throws {
    let loopback = try Loopback { request, response in
      let page = Int(request.queryValues("page").first ?? "1") ?? 1
      var headers: HTTPHeaders = [:]
      if page < 3 {
        headers["Link"] =
          #"</3/repos?page=\#(page + 1)&per_page=2>; rel="next"; title="page, \"next\"", "#
          + #"</3/repos?page=3&per_page=2>; rel="last""#
      }
      try await response.send(headers: headers, json: "[\(page * 2 - 1),\(page * 2)]")
    }
    defer { loopback.stop() }
    let first = LinkPagedRequest<[Int]>(path: "repos", query: ["per_page": 2])
    var all: [Int] = []
    for try await page in loopback.client.pages(first) { all += page }
    #expect(all == [1, 2, 3, 4, 5, 6])
    #expect(loopback.server.requestCount == 3)
  }

  @Test("a next link with a fragment is followed without it (a fragment is never sent)")
  func linkWithFragment() async throws {
    let loopback = try Loopback { request, response in
      let page = Int(request.queryValues("page").first ?? "1") ?? 1
      let headers: HTTPHeaders = page < 2 ? ["Link": #"</3/repos?page=2#top>; rel="next""#] : [:]
      try await response.send(headers: headers, json: "[\(page)]")
    }
    defer { loopback.stop() }
    var all: [Int] = []
    for try await page in loopback.client.pages(LinkPagedRequest<[Int]>(path: "repos")) {
      all += page
    }
    #expect(all == [1, 2])
  }

  @Test("a malformed Link header ends paging after that page, without error")
  func malformedLink() async throws {
    let loopback = try Loopback { _, response in
      try await response.send(headers: ["Link": "https://elsewhere/2; rel=next"], json: "[1]")
    }
    defer { loopback.stop() }
    var count = 0
    for try await _ in loopback.client.pages(LinkPagedRequest<[Int]>(path: "repos")) { count += 1 }
    #expect(count == 1)
    #expect(loopback.server.requestCount == 1)
  }

  @Test("a cross-origin next link is not followed, so credentials stay home")
  func crossOriginLink() async throws {
    let elsewhere = try Loopback { _, response in try await response.send(json: "[2]") }
    defer { elsewhere.stop() }
    let next = elsewhere.server.baseURL.appendingPathComponent("repos").absoluteString
    let loopback = try Loopback { _, response in
      try await response.send(headers: ["Link": "<\(next)>; rel=next"], json: "[1]")
    }
    defer { loopback.stop() }
    var count = 0
    for try await _ in loopback.client.pages(LinkPagedRequest<[Int]>(path: "repos")) { count += 1 }
    #expect(count == 1)
    #expect(elsewhere.server.requestCount == 0)
  }

  @Test("a server that repeats the same cursor ends with an error, not an endless loop")
  func repeatedCursor() async throws {
    let loopback = try Loopback { _, response in
      try await response.send(encoding: CursorPage(items: ["x"], nextCursor: "same"))
    }
    defer { loopback.stop() }
    var pages = 0
    let error = await #expect(throws: HTTPError.self) {
      for try await _ in loopback.client.pages(Events()) { pages += 1 }
    }
    #expect(error?.invalidRequestReason?.contains("same next page") == true)
    #expect(pages == 2)
    #expect(loopback.server.requestCount == 2)
  }

  @Test("a repeated page's error hides the query values the client lists as credentials")
  func repeatedPageRedacted() async throws {
    let configuration = HTTPClient.Configuration(redactedNames: ["Cursor"])
    let loopback = try Loopback(configuration: configuration) { _, response in
      try await response.send(encoding: CursorPage(items: ["x"], nextCursor: "cursor-SECRET"))
    }
    defer { loopback.stop() }
    let error = await #expect(throws: HTTPError.self) {
      for try await _ in loopback.client.pages(Events()) {}
    }
    let reason = try #require(error?.invalidRequestReason)
    #expect(!"\(try #require(error))".contains("cursor-SECRET"))
    #expect(reason.contains("/3/events?cursor=<redacted>"))
    // A value no rule lists is shown as it is, so the loop can be found.
    let plain = try Loopback { _, response in
      try await response.send(encoding: CursorPage(items: ["x"], nextCursor: "plain-cursor"))
    }
    defer { plain.stop() }
    let shown = await #expect(throws: HTTPError.self) {
      for try await _ in plain.client.pages(Events()) {}
    }
    #expect(shown?.invalidRequestReason?.contains("/3/events?cursor=plain-cursor") == true)
  }

  @Test("a cursor sent in a header is not mistaken for a repeated page")
  func headerCursor() async throws {
    struct HeaderCursor: PagedEndpoint {
      typealias Response = CursorPage
      var cursor = ""
      var path: String { "events" }
      var headers: HTTPHeaders { ["X-Continuation": cursor] }
      func nextPage(after page: CursorPage, response: HTTPResponse) -> HeaderCursor? {
        page.nextCursor.map { HeaderCursor(cursor: $0) }
      }
    }
    let loopback = try Loopback { request, response in
      let cursor = request.headers["X-Continuation"] ?? ""
      let next: String? = cursor.count < 3 ? cursor + "x" : nil
      try await response.send(encoding: CursorPage(items: [cursor], nextCursor: next))
    }
    defer { loopback.stop() }
    var items: [String] = []
    for try await item in loopback.client.pages(HeaderCursor()).items(\.items) {
      items.append(item)
    }
    #expect(items == ["", "x", "xx", "xxx"])
  }

  @Test("after a redirect to another origin, that origin's next link is not followed")
  func linkAfterCrossOriginRedirect() async throws {
    let elsewhere = try LoopbackServer { request, response in
      let next = "http://127.0.0.1:\(request.headers["Host"]?.split(separator: ":").last ?? "0")/p2"
      try await response.send(headers: ["Link": "<\(next)>; rel=next"], json: "[1]")
    }
    defer { elsewhere.stop() }
    let target = elsewhere.baseURL.appendingPathComponent("p1").absoluteString
    let origin = try LoopbackServer { _, response in
      try await response.send(status: 302, headers: ["Location": target], text: "")
    }
    defer { origin.stop() }
    let client = HTTPClient(baseURL: origin.baseURL)
    var pages = 0
    for try await _ in client.pages(LinkPagedRequest<[Int]>(path: "repos")) { pages += 1 }
    #expect(pages == 1)
    #expect(elsewhere.requestCount == 1)
  }
}
