import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The cache's disk store: what survives a restart, and what a damaged file becomes.
@Suite("HTTPCache on disk", .timeLimit(.minutes(1)))
struct DiskCacheTests {
  static let movie = Movie(id: 42, title: "Heat")

  /// A scratch directory with `cache` in it, and a server of `movie` with `max-age=60`
  /// that counts the requests it receives. Call `stop()` when done.
  struct Fixture {
    let scratch: ScratchDirectory
    let seen = Locked(0)
    let server: LoopbackServer

    init(etag: String? = nil) throws {
      scratch = try ScratchDirectory()
      let resource = LoopbackResource(
        body: try JSONEncoder().encode(DiskCacheTests.movie), etag: etag,
        cacheControl: "max-age=60")
      let seen = seen
      server = try LoopbackServer { request, response in
        seen.withLock { $0 += 1 }
        try await resource.serve(request, with: response)
      }
    }

    /// The cache directory.
    var directory: URL { scratch.file("cache") }
    /// How many requests reached the server.
    var requests: Int { seen.withLock { $0 } }

    /// A client of the server that caches in `cache`.
    func client(_ cache: HTTPCache) -> HTTPClient {
      HTTPClient(baseURL: server.baseURL, configuration: .init(cache: cache))
    }

    /// `movie/42` through a fresh cache on the directory, as a new launch would ask.
    func fetch() async throws -> DecodedResponse<Movie> {
      try await client(try HTTPCache(directory: directory)).response(
        for: Request<Movie>(path: "movie/42"))
    }

    func stop() {
      server.stop()
      scratch.remove()
    }
  }

  func client(_ server: LoopbackServer, _ cache: HTTPCache) -> HTTPClient {
    HTTPClient(baseURL: server.baseURL, configuration: .init(cache: cache))
  }

  /// The entry files under `directory`.
  func entryFiles(_ directory: URL) -> [URL] {
    let manager = FileManager.default
    return ((try? manager.contentsOfDirectory(atPath: directory.path)) ?? []).flatMap { folder in
      ((try? manager.contentsOfDirectory(atPath: directory.appendingPathComponent(folder).path))
        ?? []).map { directory.appendingPathComponent(folder).appendingPathComponent($0) }
    }
  }

  @Test(
    "a second client, with a cache of its own on the same disk.directory, is answered from disk")
  func acrossClients() async throws {
    let disk = try Fixture()
    defer { disk.stop() }
    _ = try await disk.fetch()
    let restarted = try HTTPCache(directory: disk.directory)
    #expect(restarted.diskUsage > 0)
    let answer = try await disk.client(restarted).response(for: Request<Movie>(path: "movie/42"))
    #expect(answer.value == Self.movie)
    #expect(answer.response.cacheStatus == .hit)
    #expect(disk.requests == 1)
  }

  @Test("nothing on disk names the URL or holds a credential the request carried")
  func noSecretsOnDisk() async throws {
    let disk = try Fixture()
    defer { disk.stop() }
    let cache = try HTTPCache(directory: disk.directory)
    let request = Request<Movie>(
      path: "movie/42", query: ["api_key": "query-secret-123"],
      headers: ["Authorization": "Bearer header-secret-456"])
    _ = try await disk.client(cache).send(request)
    let files = entryFiles(disk.directory)
    #expect(files.count == 1)
    for file in files {
      let text = String(decoding: try Data(contentsOf: file), as: UTF8.self) + file.path
      #expect(!text.contains("query-secret-123"))
      #expect(!text.contains("header-secret-456"))
      #expect(!text.contains("movie/42"))
    }
  }

  @Test("a response reached through a redirect whose URL carries a credential is not stored")
  func redirectedCredentialNotOnDisk() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = try JSONEncoder().encode(Self.movie)
    let server = try LoopbackServer { request, response in
      if request.path == "/old" {
        try await response.send(status: 302, headers: ["Location": "/new?api_key=hidden-777"])
      } else {
        try await LoopbackResource(body: body, cacheControl: "max-age=60").serve(
          request, with: response)
      }
    }
    defer { server.stop() }
    let cache = try HTTPCache(directory: scratch.file("cache"))
    let client = client(server, cache)
    _ = try await client.send(Request<Movie>(path: "old"))
    // Not stored at all: the redirect that led there may lead elsewhere next time.
    #expect(
      try await client.response(for: Request<Movie>(path: "old")).response.cacheStatus == .miss)
    for file in entryFiles(scratch.file("cache")) {
      #expect(!String(decoding: try Data(contentsOf: file), as: UTF8.self).contains("hidden-777"))
    }
    #expect(entryFiles(scratch.file("cache")).isEmpty)
  }

  @Test("a response with Set-Cookie is kept in memory, not on disk; one without goes to disk")
  func setCookieNotOnDisk() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let server = try LoopbackServer { request, response in
      var headers: HTTPHeaders = ["Cache-Control": "max-age=60"]
      if request.path == "/cookie" { headers["Set-Cookie"] = "session=cookie-secret-999" }
      try await response.send(status: 200, headers: headers, body: Data("{}".utf8))
    }
    defer { server.stop() }
    let cache = try HTTPCache(directory: scratch.file("cache"))
    let client = client(server, cache)
    let first = try await client.response(for: Request<Data>(path: "cookie")).response
    #expect(first.headers["Set-Cookie"] == "session=cookie-secret-999")
    let hit = try await client.response(for: Request<Data>(path: "cookie")).response
    #expect(hit.cacheStatus == .hit)
    #expect(hit.headers["Set-Cookie"] == "session=cookie-secret-999")
    #expect(entryFiles(scratch.file("cache")).isEmpty)
    _ = try await client.send(Request<Data>(path: "plain"))
    let files = entryFiles(scratch.file("cache"))
    #expect(files.count == 1)
    for file in files {
      #expect(
        !String(decoding: try Data(contentsOf: file), as: UTF8.self).contains("cookie-secret"))
    }
  }

  /// An account endpoint that shows the key it was asked with (`{"api_key": …}`), or a
  /// server that echoes it in a header, had the credential written to disk in clear.
  @Test("a response that echoes a credential the request carried is kept in memory, not on disk")
  func echoedCredentialNotOnDisk() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let server = try LoopbackServer { request, response in
      let key = request.headers["X-API-Key"] ?? ""
      var headers: HTTPHeaders = ["Cache-Control": "max-age=60"]
      if request.path == "/header" { headers["X-Request-Echo"] = "key=\(key)" }
      let body = request.path == "/body" ? #"{"api_key":"\#(key)"}"# : "{}"
      try await response.send(status: 200, headers: headers, body: Data(body.utf8))
    }
    defer { server.stop() }
    let cache = try HTTPCache(directory: scratch.file("cache"))
    let client = client(server, cache)
    for path in ["body", "header"] {
      let request = Request<Data>(path: path, headers: ["X-API-Key": "echoed-secret-4242"])
      _ = try await client.send(request)
      #expect(try await client.response(for: request).response.cacheStatus == .hit)
    }
    #expect(entryFiles(scratch.file("cache")).isEmpty)
    // The good path: the same key, not echoed, goes to disk as a digest only; so does a
    // response that shows a credential too short to be told from text by chance.
    _ = try await client.send(
      Request<Data>(path: "plain", headers: ["X-API-Key": "echoed-secret-4242"]))
    _ = try await client.send(Request<Data>(path: "body", headers: ["X-API-Key": "1"]))
    let files = entryFiles(scratch.file("cache"))
    #expect(files.count == 2)
    for file in files {
      let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
      #expect(!text.contains("echoed-secret"))
    }
  }

  @Test("a corrupted or truncated entry is a miss, replaced by the server's answer")
  func corruptedEntry() async throws {
    let disk = try Fixture()
    defer { disk.stop() }
    _ = try await disk.fetch()
    let file = try #require(entryFiles(disk.directory).first)
    var bytes = try Data(contentsOf: file)
    let title = try #require(bytes.range(of: Data("Heat".utf8)))
    bytes.replaceSubrange(title, with: Data("Hate".utf8))  // same length, other bytes
    try bytes.write(to: file)
    let afterCorruption = try await disk.fetch()
    #expect(afterCorruption.value == Self.movie)
    #expect(afterCorruption.response.cacheStatus == .miss)
    try bytes.prefix(bytes.count / 2).write(to: file)
    let afterTruncation = try await disk.fetch()
    #expect(afterTruncation.value == Self.movie)
    #expect(afterTruncation.response.cacheStatus == .miss)
    try Data("not a cache entry".utf8).write(to: file)
    let afterGarbage = try await disk.fetch()
    #expect(afterGarbage.response.cacheStatus == .miss)
    #expect(disk.requests == 4)
    // The server's answer replaced the damaged file: a new cache is answered from it.
    let healed = try await disk.fetch()
    #expect(healed.response.cacheStatus == .hit)
  }

  /// A FIFO hung the read for ever (no writer ever comes), and a link to a device such as
  /// `/dev/zero` was read until memory ran out.
  @Test("an entry replaced by a FIFO or by a file over the budget is a miss, not a hang")
  func entryNotARegularFile() async throws {
    let disk = try Fixture()
    defer { disk.stop() }
    _ = try await disk.fetch()
    let file = try #require(entryFiles(disk.directory).first)
    let entry = try Data(contentsOf: file)
    try FileManager.default.removeItem(at: file)
    #expect(mkfifo(file.path, 0o600) == 0)
    let afterFIFO = try await disk.fetch()
    #expect(afterFIFO.value == Self.movie)
    #expect(afterFIFO.response.cacheStatus == .miss)
    // The server's answer replaced it (the good path: a whole entry is a hit).
    #expect(try await disk.fetch().response.cacheStatus == .hit)
    // A whole entry, but over the budget of a cache opened smaller, is not read.
    let small = try HTTPCache(directory: disk.directory, diskCapacity: entry.count * 3)
    #expect(
      try await disk.client(small).response(for: Request<Movie>(path: "movie/42")).response
        .cacheStatus == .miss)
    #expect(disk.requests == 3)
  }

  @Test("a 304 is written back: a restarted cache sees the refreshed headers")
  func refreshedOnDisk() async throws {
    let disk = try Fixture(etag: "\"v1\"")
    defer { disk.stop() }
    let cache = try HTTPCache(directory: disk.directory)
    _ = try await disk.client(cache).send(Request<Movie>(path: "movie/42"))
    let revalidated = try await disk.client(cache).response(
      for: Request<Movie>(path: "movie/42", cachePolicy: .revalidate))
    #expect(revalidated.response.cacheStatus == .revalidated)
    let restarted = try await disk.fetch()
    #expect(restarted.response.cacheStatus == .hit)
    #expect(disk.requests == 2)
  }

  @Test("the disk store stays within its budget, the least recently used going first")
  func diskBudget() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let body = Data(repeating: 65, count: 10_000)
    let server = try LoopbackServer { request, response in
      try await LoopbackResource(body: body, cacheControl: "max-age=60").serve(
        request, with: response)
    }
    defer { server.stop() }
    let cache = try HTTPCache(
      memoryCapacity: 0, directory: scratch.file("cache"), diskCapacity: 50_000)
    let client = client(server, cache)
    for index in 0..<20 {
      _ = try await client.send(Request<Data>(path: "item/\(index)"))
      #expect(cache.diskUsage <= 50_000)
    }
    #expect(
      try await client.response(for: Request<Data>(path: "item/19")).response.cacheStatus == .hit)
    #expect(
      try await client.response(for: Request<Data>(path: "item/0")).response.cacheStatus == .miss)
  }

  /// An evicted entry's folder went on taking a directory (a 4 KiB block on ext4) for ever:
  /// a cache of many distinct URLs outgrew its budget with empty folders.
  @Test("many distinct URLs: every evicted entry's folder goes too, none is left empty")
  func evictionLeavesNoFolders() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let server = try LoopbackServer { request, response in
      try await LoopbackResource(
        body: Data(repeating: 66, count: 4_000), cacheControl: "max-age=60"
      ).serve(request, with: response)
    }
    defer { server.stop() }
    let directory = scratch.file("cache")
    let cache = try HTTPCache(memoryCapacity: 0, directory: directory, diskCapacity: 20_000)
    let client = client(server, cache)
    for index in 0..<60 {
      _ = try await client.send(Request<Data>(path: "image/\(index)"))
    }
    let folders = try FileManager.default.contentsOfDirectory(atPath: directory.path)
      .filter { !$0.hasPrefix(".") }
    let files = entryFiles(directory)
    #expect(!files.isEmpty)
    #expect(cache.diskUsage <= 20_000)
    // The good path: each folder left holds its entry.
    #expect(folders.count == files.count)
    // So does a damaged entry, deleted when it is read.
    for file in files { try Data("garbage".utf8).write(to: file) }
    for folder in folders { #expect(cache.disk?.entries(for: folder).isEmpty == true) }
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path)
        .filter { !$0.hasPrefix(".") }.isEmpty)
  }

  @Test("a cache directory deleted while the client runs is made again, with its salt")
  func directoryDeletedWhileRunning() async throws {
    let disk = try Fixture()
    defer { disk.stop() }
    let cache = try HTTPCache(memoryCapacity: 0, directory: disk.directory)
    let client = disk.client(cache)
    _ = try await client.send(Request<Movie>(path: "movie/42"))
    // The good path: answered from disk.
    #expect(
      try await client.response(for: Request<Movie>(path: "movie/42")).response.cacheStatus
        == .hit)
    try FileManager.default.removeItem(at: disk.directory)
    #expect(
      try await client.response(for: Request<Movie>(path: "movie/42")).response.cacheStatus
        == .miss)
    // That answer was stored again, on disk, and counted as all there is.
    #expect(entryFiles(disk.directory).count == 1)
    #expect(cache.diskUsage == (try Data(contentsOf: entryFiles(disk.directory)[0])).count)
    #expect(
      try await client.response(for: Request<Movie>(path: "movie/42")).response.cacheStatus
        == .hit)
    // And a new launch finds it: the salt went back with the directory.
    #expect(try await disk.fetch().response.cacheStatus == .hit)
    #expect(disk.requests == 2)
  }

  /// A lookup marked every stored variant of its URL as used, matched or not: with a server
  /// whose `Vary` names a header that changes each time (a request ID), the variants no
  /// request can match stayed the most recently used, and other URLs' entries went first.
  @Test(
    "a variant no request matched is not kept by lookups of its URL; it goes before those used",
    arguments: [false, true])
  func unmatchedVariantsGoFirst(onDisk: Bool) async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let server = try LoopbackServer { request, response in
      var headers: HTTPHeaders = ["Cache-Control": "max-age=60"]
      if request.path == "/a" { headers["Vary"] = "X-Request-ID" }
      try await response.send(
        status: 200, headers: headers, body: Data(repeating: 68, count: 4_000))
    }
    defer { server.stop() }
    let cache =
      onDisk
      ? try HTTPCache(memoryCapacity: 0, directory: scratch.file("cache"), diskCapacity: 50_000)
      : HTTPCache(memoryCapacity: 50_000)
    let usage = { onDisk ? cache.diskUsage : cache.memoryUsage }
    let client = client(server, cache)
    func status(_ path: String, id: Int? = nil) async throws -> HTTPCache.Status {
      try await client.response(
        for: Request<Data>(path: path, headers: id.map { ["X-Request-ID": "\($0)"] } ?? [:])
      ).response.cacheStatus
    }
    for id in 1...5 { #expect(try await status("a", id: id) == .miss) }
    #expect(try await status("b") == .miss)
    #expect(try await status("b") == .hit)  // the good path: used after the variants
    #expect(try await status("a", id: 6) == .miss)  // a lookup of the variants, none matched
    // Fill the budget, then two more: the least recently used go (a few, not six).
    var index = 0
    while usage() + 5_000 <= 50_000 {
      _ = try await status("c/\(index)")
      index += 1
    }
    _ = try await status("c/\(index)")
    _ = try await status("c/\(index + 1)")
    #expect(try await status("b") == .hit)
    #expect(try await status("a", id: 1) == .miss)
  }

  @Test("a cache opened with a smaller budget than its files take is trimmed at once")
  func lowerBudgetTrimmed() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let server = try LoopbackServer { request, response in
      try await LoopbackResource(
        body: Data(repeating: 67, count: 2_000), cacheControl: "max-age=60"
      ).serve(request, with: response)
    }
    defer { server.stop() }
    let directory = scratch.file("cache")
    let large = try HTTPCache(memoryCapacity: 0, directory: directory, diskCapacity: 100_000)
    for index in 0..<10 {
      _ = try await client(server, large).send(Request<Data>(path: "item/\(index)"))
    }
    // The good path: the same budget again keeps everything.
    #expect(try HTTPCache(directory: directory, diskCapacity: 100_000).diskUsage > 20_000)
    let small = try HTTPCache(memoryCapacity: 0, directory: directory, diskCapacity: 12_000)
    #expect(small.diskUsage <= 12_000)
    #expect(entryFiles(directory).count < 10)
    #expect(
      try await client(server, small).response(for: Request<Data>(path: "item/9")).response
        .cacheStatus == .hit)
  }

  @Test("a damaged salt file is replaced, and the entries made with the old salt go")
  func damagedSalt() async throws {
    let disk = try Fixture()
    defer { disk.stop() }
    _ = try await disk.fetch()
    #expect(entryFiles(disk.directory).count == 1)
    try Data("not a salt".utf8).write(to: disk.directory.appendingPathComponent(".salt"))
    let cache = try HTTPCache(directory: disk.directory)
    #expect(entryFiles(disk.directory).isEmpty)
    let answer = try await disk.client(cache).response(for: Request<Movie>(path: "movie/42"))
    #expect(answer.response.cacheStatus == .miss)
    #expect(try Data(contentsOf: disk.directory.appendingPathComponent(".salt")).count == 64)
  }

  @Test("a directory that cannot be created is a clear error; a good one works")
  func badDirectory() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let file = scratch.file("a-file")
    try Data("x".utf8).write(to: file)
    let error = #expect(throws: HTTPError.self) {
      try HTTPCache(directory: file.appendingPathComponent("cache"))
    }
    #expect(error?.invalidRequestReason?.contains("cannot be created") == true)
    #expect(error?.invalidRequestReason?.contains(file.path) == true)
    let web = #expect(throws: HTTPError.self) {
      try HTTPCache(directory: URL(string: "https://example.com/cache")!)
    }
    #expect(web?.invalidRequestReason?.contains("not a file URL") == true)
    #expect(
      try HTTPCache(directory: scratch.file("good")).directory?.path == scratch.file("good").path)
  }

  #if os(Linux)
    @Test("a directory that cannot be written is a clear error (Linux: /proc refuses files)")
    func unwritableDirectory() {
      let error = #expect(throws: HTTPError.self) {
        try HTTPCache(directory: URL(fileURLWithPath: "/proc"))
      }
      #expect(error?.invalidRequestReason?.contains("cannot be written") == true)
    }
  #endif
}
