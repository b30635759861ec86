import Courier
import CourierTesting
import Foundation

/// A TMDB-shaped API served by CourierTesting's `LoopbackServer` on 127.0.0.1, so the
/// example runs with no network and always sees the same data (``FixtureData``).
///
/// It answers like TMDB v3 under the path prefix `/3`:
///
/// | request | answer |
/// | --- | --- |
/// | `GET /3/movie/popular?page=N` | a ``MoviePage``; 400 with TMDB code 22 for a page outside 1…500 |
/// | `GET /3/movie/{id}` | a ``Movie`` with details, 25 ms late (simulated latency), cacheable for a minute (`ETag`, `If-None-Match` answered with 304) |
/// | `GET /3/movie/{id}/recommendations` | a ``MoviePage`` |
/// | `GET /3/movie/{id}/videos` | a ``VideoList``; slow for ``FixtureData/slowVideosID`` |
/// | anything else, or an unknown id | 404 with TMDB's error payload, code 34 |
///
/// JSON is written from the same models the client decodes, with ``TMDBCoding/encoder()``.
final class FixtureAPI: Sendable {
  /// The base URL to give the client: `http://127.0.0.1:PORT/3`, like TMDB's.
  let baseURL: URL
  private let server: LoopbackServer

  /// Starts the server on an ephemeral port.
  init() throws {
    let routes = FixtureRoutes(data: FixtureData())
    server = try LoopbackServer { request, response in
      try await routes.respond(to: request, with: response)
    }
    baseURL = server.baseURL.appendingPathComponent("3")
  }

  /// Stops the server and closes its connections.
  func stop() {
    server.stop()
  }
}

/// The fixture API's routes: what each request path is answered with.
private struct FixtureRoutes: Sendable {
  /// A request path, parsed.
  enum Route: Equatable {
    case popular
    case details(id: Int)
    case recommendations(id: Int)
    case videos(id: Int)

    /// The route for a percent-decoded path such as `/3/movie/550/videos`.
    init?(path: String) {
      let parts = path.split(separator: "/").map(String.init)
      guard parts.count >= 3, parts[0] == "3", parts[1] == "movie" else { return nil }
      if parts.count == 3, parts[2] == "popular" {
        self = .popular
        return
      }
      guard let id = Int(parts[2]) else { return nil }
      switch parts.dropFirst(3).first {
      case nil: self = .details(id: id)
      case "recommendations" where parts.count == 4: self = .recommendations(id: id)
      case "videos" where parts.count == 4: self = .videos(id: id)
      default: return nil
      }
    }
  }

  /// How long the slow endpoint waits for the client to hang up before it answers anyway.
  static let slowAnswerDelay = Duration.seconds(5)

  /// Simulated network latency: how long `movie/{id}` waits before it answers. A loopback
  /// server answers in well under a millisecond, which would make fetching details in
  /// parallel look pointless; a fixed wait, roughly a nearby server's round trip, makes
  /// the example's sequential-versus-parallel timing real and stable from run to run.
  static let detailsLatency = Duration.milliseconds(25)

  let data: FixtureData

  /// How big a fixture poster is, and how many pieces it is sent in, a few milliseconds
  /// apart, so that the example's progress bar has something to show.
  static let posterSize = 2_400_000
  static let posterPieces = 24

  func respond(to request: LoopbackRequest, with response: LoopbackResponse) async throws {
    if request.method == "GET", request.path.hasPrefix("/t/p/w500/") {
      return try await sendPoster(named: request.path, to: response)
    }
    guard request.method == "GET", let route = Route(path: request.path) else {
      return try await send(TMDBError.notFound, status: 404, to: response)
    }
    switch route {
    case .popular:
      let pageText = request.queryValues("page").first ?? "1"
      guard let page = Int(pageText), (1...500).contains(page) else {
        return try await send(TMDBError.invalidPage, status: 400, to: response)
      }
      try await send(data.popular(page: page), to: response)
    case .details(let id):
      try await Task.sleep(for: Self.detailsLatency)
      guard let movie = data.movie(id: id) else {
        return try await send(TMDBError.notFound, status: 404, to: response)
      }
      // Details may be cached for a minute, and revalidated by their ETag after that.
      let body = try TMDBCoding.encoder().encode(movie)
      let resource = LoopbackResource(
        body: body, etag: "\"movie-\(id)-v1\"", cacheControl: "max-age=60",
        headers: ["Content-Type": "application/json;charset=utf-8"])
      try await resource.serve(request, with: response)
    case .recommendations(let id):
      try await send(data.recommendations(for: id), to: response)
    case .videos(let id):
      if id == FixtureData.slowVideosID,
        await Self.clientHangsUp(response, within: Self.slowAnswerDelay)
      {
        return  // nobody is left to answer
      }
      try await send(data.videos(for: id), to: response)
    }
  }

  /// Sends a made-up poster (bytes derived from its name) in pieces.
  private func sendPoster(named name: String, to response: LoopbackResponse) async throws {
    let seed = name.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFF }
    let piece = Data((0..<(Self.posterSize / Self.posterPieces)).map { UInt8(($0 &+ seed) & 0xFF) })
    try await response.writeHead(
      headers: ["Content-Type": "image/jpeg"], contentLength: piece.count * Self.posterPieces)
    for _ in 0..<Self.posterPieces {
      try await response.write(piece)
      try await Task.sleep(for: .milliseconds(15))
    }
    try await response.finish()
  }

  /// Waits until the client closes the connection (`true`) or `limit` has passed (`false`).
  private static func clientHangsUp(_ response: LoopbackResponse, within limit: Duration) async
    -> Bool
  {
    await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        await response.clientDisconnected()  // also returns when this task is cancelled
        return response.isClientDisconnected
      }
      group.addTask {
        try? await Task.sleep(for: limit)
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first
    }
  }

  /// `value` as JSON with status 200, or TMDB's not-found error when it is `nil`.
  private func send(_ value: (some Encodable)?, to response: LoopbackResponse) async throws {
    guard let value else {
      return try await send(TMDBError.notFound, status: 404, to: response)
    }
    try await send(value, status: 200, to: response)
  }

  private func send(_ value: some Encodable, status: Int, to response: LoopbackResponse)
    async throws
  {
    let body = try TMDBCoding.encoder().encode(value)
    try await response.send(
      status: status, headers: ["Content-Type": "application/json;charset=utf-8"], body: body)
  }
}
