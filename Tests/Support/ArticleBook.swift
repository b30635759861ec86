import Courier

// The first types of the DocC article "Getting started", for the tests that hold the articles'
// snippets (unit and integration). Public here only so both test targets see them.

/// A book, as the articles' example API answers it.
public struct Book: Codable, Sendable {
  /// The book's id.
  public let id: Int
  /// The book's title.
  public let title: String
}

/// One book by its id.
public struct BookDetails: Endpoint {
  /// A book.
  public typealias Response = Book
  /// The book's id.
  public let id: Int
  /// `books/{id}`.
  public var path: String { "books/\(id)" }

  /// The endpoint of the book with this id.
  public init(id: Int) {
    self.id = id
  }
}
