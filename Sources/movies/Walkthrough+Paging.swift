import Courier

extension Walkthrough {
  // MARK: - Paging

  /// Reads the popular list page after page with `for try await`, at most `maximumPages`
  /// pages, printing a line for each; then movie after movie with `items(\.results)`:
  /// counting all of them, and taking the first `firstCount` and leaving the loop with
  /// `break`, which stops the fetching.
  func pageThroughPopular(maximumPages: Int, takingFirst firstCount: Int)
    async throws(HTTPError)
  {
    let first = MovieApi.popular(page: 1)
    let pages = "client.pages(MovieApi.popular(page: 1), maximumPages: \(maximumPages))"
    print("for try await page in \(pages)\n")
    for try await page in client.pages(first, maximumPages: maximumPages) {
      let opener = page.results.first.map { "first “\($0.title)”" } ?? "no movies"
      print("  page \(page.page) of \(page.totalPages): \(page.results.count) movies, \(opener)")
    }

    var count = 0
    for try await _ in client.pages(first, maximumPages: maximumPages).items(\.results) {
      count += 1
    }
    print("\nOne movie at a time with .items(\\.results), the same \(maximumPages)-page limit:")
    print("  \(count) movies")

    // No page limit this time: leaving the loop is what ends the sequence, and the closure
    // runs once for every page fetched.
    let pagesFetched = Tally()
    let movies = client.pages(first).items { page in
      pagesFetched.increment()
      return page.results
    }
    var taken: [Movie] = []
    for try await movie in movies {
      taken.append(movie)
      if taken.count == firstCount { break }
    }
    print("\nThe first \(firstCount), then break, with no page limit:")
    if let last = taken.last {
      print("  \(taken.count) movies, the last “\(last.title)”")
    }
    print("  \(pagesFetched.count) pages fetched: none after the loop stopped asking")
  }
}
