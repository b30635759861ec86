import Foundation

/// A count that `@Sendable` closures can add to, such as the closure `items(_:)` calls for
/// each page it fetches.
///
/// ```swift
/// let pagesFetched = Tally()
/// let movies = client.pages(MovieApi.popular(page: 1)).items { page in
///   pagesFetched.increment()
///   return page.results
/// }
/// ```
final class Tally: @unchecked Sendable {
  // `@unchecked Sendable` is safe: `value` is only read and written while `lock` is held.
  private let lock = NSLock()
  private var value = 0

  /// Creates a tally at zero.
  init() {}

  /// The count so far.
  var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return value
  }

  /// Adds one.
  func increment() {
    lock.lock()
    defer { lock.unlock() }
    value += 1
  }
}
