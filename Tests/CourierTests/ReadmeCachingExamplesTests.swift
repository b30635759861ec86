import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The caching and resuming examples that were the README's, now in the articles "Caching
/// responses" and "Transfers and streaming", and the first example "Caching responses" had,
/// compiled and run against a stub.
@Suite("README and article examples: caching and resuming downloads")
struct ReadmeCachingExamplesTests {
  enum MovieApi: Endpoint {
    typealias Response = Movie
    case details(id: Int)

    var path: String {
      switch self {
      case .details(let id): "movie/\(id)"
      }
    }
  }

  /// A scratch directory, deleted by the caller.
  func scratch() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "courier-readme-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  @Test("the caching example: a second request is a hit; reload asks again")
  func caching() async throws {
    let cachesDirectory = try scratch()
    defer { try? FileManager.default.removeItem(at: cachesDirectory) }
    let stub = StubTransport()
      .on(
        .get, "/3/movie/550",
        .json(
          #"{"id":550,"title":"Fight Club"}"#,
          headers: ["Cache-Control": "max-age=60", "ETag": "\"fc\""]))
    // The code of the article "Caching responses" (Overview and "Per request"), with the stub
    // as transport.
    let cache = try HTTPCache(directory: cachesDirectory.appendingPathComponent("tmdb"))
    let cachedClient = HTTPClient(
      baseURL: URL(string: "https://api.themoviedb.org/3")!,
      configuration: HTTPClient.Configuration(cache: cache), transport: stub)
    let first = try await cachedClient.response(for: MovieApi.details(id: 550))  // from the server
    let again = try await cachedClient.response(for: MovieApi.details(id: 550))  // from the cache
    #expect(first.response.cacheStatus == .miss)
    #expect(again.response.cacheStatus == .hit)
    #expect(again.value.title == "Fight Club")
    let refreshed = try await cachedClient.send(
      Request<Movie>(path: "movie/550", cachePolicy: .reload))
    #expect(refreshed.id == 550)
    #expect(stub.requests.count == 2)
  }

  @Test("the article's example: a miss, then a hit")
  func article() async throws {
    let cachesDirectory = try scratch()
    defer { try? FileManager.default.removeItem(at: cachesDirectory) }
    let url = URL(string: "https://api.themoviedb.org/3")!
    let stub = StubTransport().on(
      .get, "/3/movie/550",
      .json(#"{"id":550,"title":"Fight Club"}"#, headers: ["Cache-Control": "max-age=60"]))
    // The code the article "Caching responses" showed before it took the README's example
    // (issue 29), with the stub as transport.
    let cache = try HTTPCache(directory: cachesDirectory.appendingPathComponent("api"))
    let client = HTTPClient(baseURL: url, configuration: .init(cache: cache), transport: stub)
    let answer = try await client.response(for: MovieApi.details(id: 550))
    #expect(answer.response.cacheStatus == .miss)
    let again = try await client.response(for: MovieApi.details(id: 550))
    #expect(again.response.cacheStatus == .hit)
  }

  @Test("the resuming example: a failed download's resume data finishes it later")
  func resuming() async throws {
    let directory = try scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let movieFile = directory.appendingPathComponent("trailer.mp4")
    let resumeFile = directory.appendingPathComponent("trailer.resume")
    let body = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
    let calls = Locked(0)
    // Drops the first four answers (the download and its three continuations) after 4,000
    // bytes, then serves what is asked: the rest, or all of it.
    let stub = StubTransport().on(.get, "/3/movie/42/trailer.mp4") { request throws(HTTPError) in
      let call = calls.withLock { count in
        count += 1
        return count
      }
      let range = request.value(forHTTPHeaderField: "Range")
      let start = range.flatMap { Int($0.dropFirst(6).prefix { $0 != "-" }) } ?? 0
      var headers: HTTPHeaders = ["ETag": "\"t1\"", "Content-Length": "\(body.count - start)"]
      if start > 0 { headers["Content-Range"] = "bytes \(start)-\(body.count - 1)/\(body.count)" }
      let rest = body.subdata(in: start..<body.count)
      if call <= 4 {
        return .chunks(
          [rest.prefix(1000)], status: start > 0 ? 206 : 200, headers: headers,
          thenFailing: .transport(URLError(.networkConnectionLost)))
      }
      var answer = StubResponse(status: start > 0 ? 206 : 200, headers: headers, body: rest)
      answer.headers = headers
      return answer
    }
    let client = HTTPClient(baseURL: URL(string: "https://api.themoviedb.org/3")!, transport: stub)
    var resumed: URL?
    // The code of the article "Transfers and streaming", "Resuming downloads".
    let trailer = Request<Data>(path: "movie/42/trailer.mp4")
    var options = TransferOptions()
    options.resumeData = { data in try? JSONEncoder().encode(data).write(to: resumeFile) }
    do {
      _ = try await client.download(trailer, to: movieFile, options: options).finished()
    } catch {
      // Later, or after a relaunch, and from a fresh URL if the old one expired:
      let data = try JSONDecoder().decode(
        DownloadResumeData.self, from: Data(contentsOf: resumeFile))
      let file = try await client.download(trailer, to: movieFile, resumingFrom: data).finished()
      resumed = file.url
    }
    #expect(resumed == movieFile)
    #expect(try Data(contentsOf: movieFile) == body)
    #expect(calls.withLock { $0 } == 5)
    #expect(stub.requests.last?.value(forHTTPHeaderField: "Range") == "bytes=4000-")
  }
}
