import Courier
import Foundation

/// The eight things the example shows, each a section of output: a page of popular movies,
/// one movie's details, paging through a list (`Walkthrough+Paging.swift`), fetching many
/// movies' details in parallel (`Walkthrough+Parallel.swift`), a cache answering again
/// (`Walkthrough+Caching.swift`), a poster downloaded with a progress bar
/// (`Walkthrough+Poster.swift`), a cancelled request, and an API error decoded from its
/// payload.
struct Walkthrough: Sendable {
  /// The client every step sends through.
  let client: HTTPClient

  // MARK: - Popular movies

  /// Prints page `page` of the popular movies as a table and returns the page.
  func listPopular(page: Int) async throws(HTTPError) -> MoviePage {
    let movies = try await client.send(MovieApi.popular(page: page))
    guard !movies.results.isEmpty else {
      print("No movies on page \(movies.page): the list has \(movies.totalPages) pages.")
      return movies
    }
    print("Page \(movies.page) of \(movies.totalPages) (\(movies.totalResults) movies)\n")
    var table = Table(columns: [
      .init("#", .right), .init("Title", maxWidth: 40), .init("Year"), .init("Rating", .right),
    ])
    let firstRank = (movies.page - 1) * MoviePage.size + 1
    for (offset, movie) in movies.results.enumerated() {
      table.append([
        "\(firstRank + offset)", movie.title, movie.year ?? "—", Format.rating(movie.voteAverage),
      ])
    }
    print(table.render())
    return movies
  }

  // MARK: - Details

  /// Prints the details of the movie `id`, its trailer and similar movies, fetched
  /// concurrently.
  func showDetails(of id: Int) async throws(HTTPError) {
    async let details = client.send(MovieApi.details(id: id))
    async let videos = client.send(MovieApi.video(id: id))
    async let recommended = client.send(MovieApi.recommended(id: id))
    let movie: Movie
    let trailers: VideoList
    let alike: MoviePage
    do {
      (movie, trailers, alike) = try await (details, videos, recommended)
    } catch let error as HTTPError {
      throw error
    } catch {
      // `async let` rethrows as `any Error` (Swift 6.3 keeps no typed throws there), but
      // the three calls throw only `HTTPError`.
      preconditionFailure("unexpected error: \(error)")
    }

    print("\(movie.title)\(movie.year.map { " (\($0))" } ?? "")")
    if let tagline = movie.tagline, !tagline.isEmpty {
      print("“\(tagline)”")
    }
    var facts = [movie.genres.map { $0.map(\.name).joined(separator: ", ") } ?? ""]
    facts.append(movie.runtime.map(Format.runtime) ?? "")
    facts.append("★ \(Format.rating(movie.voteAverage)) (\(movie.voteCount) votes)")
    print(facts.filter { !$0.isEmpty }.joined(separator: " · "))
    if !movie.overview.isEmpty {
      print(Format.wrap(movie.overview, width: 78))
    }
    var links: [String] = []
    if let poster = movie.posterURL() {
      links.append("Poster:   \(poster)")
    }
    if let trailer = trailers.results.first(where: { $0.type == "Trailer" })
      ?? trailers.results.first
    {
      links.append("Trailer:  \(trailer.name) — \(trailer.watchURL ?? trailer.key)")
    }
    if !alike.results.isEmpty {
      links.append("Alike:    \(alike.results.prefix(3).map(\.title).joined(separator: ", "))")
    }
    if !links.isEmpty {
      print("\n" + links.joined(separator: "\n"))
    }
  }

  // MARK: - Cancellation

  /// Starts a request for the videos of `id`, cancels it after `delay`, and prints how the
  /// request ended and how soon after `cancel()` the caller had its answer.
  func cancelRequest(forVideosOf id: Int, after delay: Duration) async {
    let clock = ContinuousClock()
    let client = self.client
    let task = Task { () async -> Result<VideoList, HTTPError> in
      do throws(HTTPError) {
        return .success(try await client.send(MovieApi.video(id: id)))
      } catch {
        return .failure(error)
      }
    }
    try? await Task.sleep(for: delay)
    let cancelledAt = clock.now
    task.cancel()
    let outcome = await task.value
    let reaction = cancelledAt.duration(to: clock.now)

    print("GET movie/\(id)/videos, cancelled after \(Format.milliseconds(delay)):")
    switch outcome {
    case .failure(.cancelled):
      print("  threw HTTPError.cancelled \(Format.milliseconds(reaction)) after cancel()")
    case .failure(let error):
      print("  failed before it could be cancelled: \(error)")
    case .success(let videos):
      print("  answered before it could be cancelled (\(videos.results.count) videos)")
    }
  }

  // MARK: - Errors

  /// Asks for the movie `id`, which does not exist, and prints TMDB's error payload from
  /// the typed error.
  func showNotFound(id: Int) async throws(HTTPError) {
    print("GET movie/\(id):")
    do throws(HTTPError) {
      let movie = try await client.send(MovieApi.details(id: id))
      print("  unexpectedly found “\(movie.title)”")
    } catch {
      guard case .unacceptableStatus(let response) = error else { throw error }
      // The payload has TMDB's snake_case keys: decode it with the client's decoder, not
      // `decodeBody`'s default plain `JSONDecoder()`.
      if let payload = error.decodeBody(as: TMDBError.self, using: client.configuration.decoder) {
        print("  \(response.status): \(payload.statusMessage)")
      } else {
        print("  \(response.status), without a TMDB error payload")
      }
    }
  }
}
