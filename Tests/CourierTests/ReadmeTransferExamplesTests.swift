import Courier
import CourierTesting
import Foundation
import Testing

/// The old README's downloads, uploads and streaming examples, compiled and run against a stub.
/// The upload loop is now the article "Transfers and streaming"'s; for downloads, byte streams
/// and events the article shows its own versions (held by ArticleRequestsTests).
@Suite("README examples: transfers and streams")
struct ReadmeTransferExamplesTests {
  struct Movie: Decodable, Sendable { let id: Int }
  struct Delta: Decodable, Sendable { let text: String }

  let client = HTTPClient(
    baseURL: URL(string: "https://api.test/3")!,
    transport: StubTransport()
      .on(.get, "/t/p/w500/heat.jpg", StubResponse(body: Data("jpeg".utf8)))
      .on(.put, "/videos/42", StubResponse(status: 204))
      .on(.get, "/exports/movies.ndjson", StubResponse(text: "{\"id\":1}\n{\"id\":2}\n"))
      .on(
        .get, "/chat/stream",
        StubResponse(
          headers: ["Content-Type": "text/event-stream"],
          body: Data("event: delta\ndata: {\"text\":\"Hi\"}\n\n".utf8))))

  @Test("downloads and uploads as the README shows them")
  func transfers() async throws {
    let poster = FileManager.default.temporaryDirectory.appendingPathComponent(
      "heat-\(UUID()).jpg")
    defer { try? FileManager.default.removeItem(at: poster) }
    let image = Request<Data>(path: "t/p/w500/heat.jpg")
    var saved: URL?
    for try await event in client.download(image, to: poster) {
      switch event {
      case .progress(let progress): _ = (progress.completedBytes, progress.fraction ?? 0)
      case .completed(let download): saved = download.url
      }
    }
    #expect(saved == poster)
    let download = try await client.download(image, to: poster).finished()
    #expect(try Data(contentsOf: download.url) == Data("jpeg".utf8))

    let movieURL = poster
    let upload = Request<EmptyResponse>(method: .put, path: "videos/42", body: .file(movieURL))
    var fractions: [Double] = []
    for try await event in client.upload(upload) {
      if case .progress(let progress) = event { fractions.append(progress.fraction ?? 0) }
    }
    #expect(fractions == [1])
  }

  @Test("bytes and events as the README shows them")
  func streams() async throws {
    let stream = try await client.bytes(Request<Data>(path: "exports/movies.ndjson"))
    #expect(stream.response.status == 200)
    var movies: [Int] = []
    for try await line in stream.lines {
      let movie = try JSONDecoder().decode(Movie.self, from: Data(line.utf8))
      movies.append(movie.id)
    }
    #expect(movies == [1, 2])

    var text = ""
    for try await event in client.events(Request<Data>(path: "chat/stream"), reconnection: .never)
    where event.event == "delta" {
      text += try event.decode(Delta.self).text
    }
    #expect(text == "Hi")
  }
}
