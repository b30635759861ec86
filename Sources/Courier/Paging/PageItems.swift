/// The items of every page of a ``Pages`` sequence, one at a time, fetched page by page.
///
/// ```swift
/// for try await movie in client.pages(MovieApi.popular(page: 1)).items(\.results) {
///   print(movie.title)
/// }
/// ```
public struct PageItems<E: PagedEndpoint, Item: Sendable>: AsyncSequence, Sendable {
  /// One item.
  public typealias Element = Item
  /// The error every failure is thrown as.
  public typealias Failure = HTTPError

  let pages: Pages<E>
  let items: @Sendable (E.Response) -> [Item]

  /// Starts an iteration from the first page.
  public func makeAsyncIterator() -> Iterator {
    Iterator(pages: pages.makeAsyncIterator(), items: items)
  }

  /// Hands out a page's items, then fetches the next page.
  public struct Iterator: AsyncIteratorProtocol {
    private var pages: Pages<E>.Iterator
    private let items: @Sendable (E.Response) -> [Item]
    private var buffer: [Item] = []
    private var index = 0

    init(pages: Pages<E>.Iterator, items: @escaping @Sendable (E.Response) -> [Item]) {
      self.pages = pages
      self.items = items
    }

    /// The next item, or `nil` after the last page's last item.
    public mutating func next() async throws(HTTPError) -> Item? {
      try await next(isolation: nil)
    }

    /// The next item, or `nil` after the last page's last item, staying in the caller's
    /// isolation.
    public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPError)
      -> Item?
    {
      while index == buffer.count {
        guard let page = try await pages.next(isolation: actor) else { return nil }
        buffer = items(page)
        index = 0
      }
      defer { index += 1 }
      return buffer[index]
    }
  }
}
