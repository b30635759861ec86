import Foundation

/// The pages of a ``PagedEndpoint``, fetched lazily, one at a time, as an `AsyncSequence`.
///
/// ```swift
/// for try await page in client.pages(MovieApi.popular(page: 1)) {
///   print(page.results.map(\.title))
/// }
/// ```
///
/// Nothing is sent before the first `next()`; each page is fetched when asked for, so only
/// one page is held at a time (two with `prefetch`). The sequence ends after the last page
/// (``PagedEndpoint/nextPage(after:response:)`` returned `nil`) or after `maximumPages`. It
/// throws ``HTTPError`` when a page fails, when the task is cancelled (`cancelled`), when
/// `maximumPages` is negative (`invalidRequest`, before anything is sent), and when
/// a server sends the same next page again (`invalidRequest`), which would loop forever;
/// to notice that, it keeps a hash of each page's request (8 bytes a page).
public struct Pages<E: PagedEndpoint>: AsyncSequence, Sendable {
  /// A decoded page.
  public typealias Element = E.Response
  /// The error every failure is thrown as.
  public typealias Failure = HTTPError

  let client: HTTPClient
  let first: E
  let maximumPages: Int?
  let prefetches: Bool

  /// Starts an iteration from the first page.
  public func makeAsyncIterator() -> Iterator {
    Iterator(client: client, upcoming: first, maximumPages: maximumPages, prefetches: prefetches)
  }

  /// The items of every page, one at a time, taken from each page by `items`:
  /// `client.pages(first).items(\.results)`.
  public func items<Item: Sendable>(_ items: @escaping @Sendable (E.Response) -> [Item])
    -> PageItems<E, Item>
  {
    PageItems(pages: self, items: items)
  }

  /// Fetches pages one by one.
  public struct Iterator: AsyncIteratorProtocol {
    private let client: HTTPClient
    private var upcoming: E?
    private let maximumPages: Int?
    private let prefetches: Bool
    private var fetched = 0
    private var seen: Set<Int> = []
    private var pendingError: HTTPError?
    private var prefetch: Prefetch<E.Response>?

    init(client: HTTPClient, upcoming: E, maximumPages: Int?, prefetches: Bool) {
      self.client = client
      self.upcoming = upcoming
      self.maximumPages = maximumPages
      self.prefetches = prefetches
    }

    /// The next page, or `nil` after the last one.
    public mutating func next() async throws(HTTPError) -> E.Response? {
      try await next(isolation: nil)
    }

    /// The next page, or `nil` after the last one, staying in the caller's isolation.
    public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPError)
      -> E.Response?
    {
      if let pendingError {
        self.pendingError = nil
        throw pendingError
      }
      if Task.isCancelled, upcoming != nil {
        upcoming = nil
        prefetch = nil
        throw .cancelled
      }
      if let maximumPages, maximumPages < 0, upcoming != nil {
        upcoming = nil
        throw .invalidRequest(
          reason: "maximumPages is \(maximumPages); it must be 0 or more, or nil for no limit")
      }
      guard let endpoint = upcoming, maximumPages.map({ fetched < $0 }) ?? true else {
        upcoming = nil
        return nil
      }
      if fetched == 0 {
        do throws(HTTPError) {
          try remember(endpoint)
        } catch {
          upcoming = nil
          throw error
        }
      }
      let page: DecodedResponse<E.Response>
      do throws(HTTPError) {
        if let prefetched = prefetch {
          prefetch = nil
          page = try await prefetched.value()
        } else {
          page = try await client.response(for: endpoint)
        }
      } catch {
        upcoming = nil
        throw error
      }
      fetched += 1
      upcoming = nil
      if maximumPages.map({ fetched < $0 }) ?? true,
        let next = endpoint.nextPage(after: page.value, response: page.response)
      {
        do throws(HTTPError) {
          try remember(next)
          upcoming = next
          if prefetches { prefetch = Prefetch(client: client, endpoint: next) }
        } catch {
          pendingError = error
        }
      }
      return page.value
    }

    /// Records the request `endpoint` becomes, refusing one already fetched.
    private mutating func remember(_ endpoint: E) throws(HTTPError) {
      let request = try client.urlRequest(for: endpoint)
      var hasher = Hasher()
      hasher.combine(request.httpMethod)
      hasher.combine(request.url?.absoluteString)
      hasher.combine(request.httpBody)
      for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
        hasher.combine(name.lowercased())  // a cursor may travel in a header
        hasher.combine(value)
      }
      guard seen.insert(hasher.finalize()).inserted else {
        // The client's credential rule, its listed names included, as for any error it throws.
        let url = client.credentialRule.sending(request).describe(request.url)
        throw .invalidRequest(
          reason: "the server sent the same next page again (\(url)); "
            + "paging stopped instead of looping forever")
      }
    }
  }
}

/// A page being fetched ahead of time; cancelled if nobody asks for it.
private final class Prefetch<Value: Sendable>: Sendable {
  private let task: Task<DecodedResponse<Value>, any Error>

  init<E: Endpoint>(client: HTTPClient, endpoint: E) where E.Response == Value {
    task = Task { try await client.response(for: endpoint) }
  }

  func value() async throws(HTTPError) -> DecodedResponse<Value> {
    do {
      return try await withTaskCancellationHandler {
        try await task.value
      } onCancel: { [task] in
        task.cancel()
      }
    } catch let error as HTTPError {
      throw error
    } catch {
      throw .cancelled
    }
  }

  deinit {
    task.cancel()
  }
}
