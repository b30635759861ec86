import Foundation

/// The query items of a request, in order, with typed values.
///
/// Write it as a dictionary literal; `nil` optionals are left out, arrays and booleans are
/// encoded as the client's ``QueryEncoding`` says, and every name and value is
/// percent-encoded so that the server reads back exactly what was given.
///
/// ```swift
/// var query: Query { ["page": page, "language": language, "with_genres": [28, 12], "adult": false] }
/// ```
public struct Query: Sendable, Equatable, ExpressibleByDictionaryLiteral {
  /// One name with its value.
  public struct Item: Sendable, Equatable {
    /// The name, unencoded.
    public var name: String
    /// The value, unencoded.
    public var value: QueryValue

    /// Creates an item.
    public init(name: String, value: QueryValue) {
      self.name = name
      self.value = value
    }
  }

  /// The items in order; a name may repeat.
  public var items: [Item]

  /// An empty query.
  public init() {
    items = []
  }

  /// A query from items in order.
  public init(_ items: [Item]) {
    self.items = items
  }

  /// A query from name–value pairs in order.
  public init(dictionaryLiteral elements: (String, any QueryValueConvertible)...) {
    items = elements.map { Item(name: $0.0, value: $0.1.queryValue) }
  }

  /// Whether the query has no items.
  public var isEmpty: Bool { items.isEmpty }

  /// Appends an item, keeping earlier items of the same name.
  public mutating func append(_ name: String, _ value: some QueryValueConvertible) {
    items.append(Item(name: name, value: value.queryValue))
  }
}

/// A query value before encoding.
public enum QueryValue: Sendable, Hashable {
  /// Text, sent as it is (percent-encoded).
  case string(String)
  /// A boolean, sent as the client's ``QueryEncoding/BooleanStyle`` says.
  case bool(Bool)
  /// Several values for one name, sent as the client's ``QueryEncoding/ArrayStyle`` says.
  case list([QueryValue])
  /// No value: the item is left out (an optional that was `nil`).
  case absent
}

/// A type that can stand as a query value.
///
/// `String`, the integer and floating-point types, `Bool`, `UUID`, arrays and optionals of
/// them conform. A `RawRepresentable` enum conforms with an empty extension:
/// `extension SortOrder: QueryValueConvertible {}`.
public protocol QueryValueConvertible: Sendable {
  /// The value to encode.
  var queryValue: QueryValue { get }
}

extension QueryValueConvertible where Self: RawRepresentable, RawValue: QueryValueConvertible {
  /// The raw value's query value.
  public var queryValue: QueryValue { rawValue.queryValue }
}

extension QueryValue: QueryValueConvertible {
  /// Itself.
  public var queryValue: QueryValue { self }
}

extension String: QueryValueConvertible {
  /// The string.
  public var queryValue: QueryValue { .string(self) }
}

extension Substring: QueryValueConvertible {
  /// The substring as a string.
  public var queryValue: QueryValue { .string(String(self)) }
}

extension Bool: QueryValueConvertible {
  /// The boolean.
  public var queryValue: QueryValue { .bool(self) }
}

extension Int: QueryValueConvertible {
  /// The decimal digits.
  public var queryValue: QueryValue { .string(String(self)) }
}

extension Int64: QueryValueConvertible {
  /// The decimal digits.
  public var queryValue: QueryValue { .string(String(self)) }
}

extension Int32: QueryValueConvertible {
  /// The decimal digits.
  public var queryValue: QueryValue { .string(String(self)) }
}

extension UInt: QueryValueConvertible {
  /// The decimal digits.
  public var queryValue: QueryValue { .string(String(self)) }
}

extension UInt64: QueryValueConvertible {
  /// The decimal digits.
  public var queryValue: QueryValue { .string(String(self)) }
}

extension Double: QueryValueConvertible {
  /// The shortest decimal form that reads back as the same value. NaN and the infinities
  /// have none: a request with one fails with ``HTTPError/invalidRequest(reason:)``, as a
  /// JSON body with one does, and nothing is sent.
  public var queryValue: QueryValue { .number(String(self), isFinite: isFinite) }
}

extension Float: QueryValueConvertible {
  /// The shortest decimal form that reads back as the same value. NaN and the infinities
  /// have none: a request with one fails with ``HTTPError/invalidRequest(reason:)``, as a
  /// JSON body with one does, and nothing is sent.
  public var queryValue: QueryValue { .number(String(self), isFinite: isFinite) }
}

extension QueryValue {
  /// The text of a floating-point number; one that is not finite is marked (a control
  /// character no value holds, as ``PathSegment`` marks an empty segment) for the request
  /// builder to refuse (``Query/nonFiniteName``).
  static func number(_ text: String, isFinite: Bool) -> QueryValue {
    .string(isFinite ? text : String(UnicodeScalar(notFiniteMarker)) + text)
  }

  /// The mark of a number that is not finite.
  static let notFiniteMarker: UInt8 = 0x1A

  /// Whether the value, or one in its list, is a number that is not finite.
  var holdsNonFinite: Bool {
    switch self {
    case .string(let text): text.utf8.first == Self.notFiniteMarker
    case .list(let values): values.contains { $0.holdsNonFinite }
    case .bool, .absent: false
    }
  }
}

extension Query {
  /// The name of the first item whose value is a number that is not finite (NaN or an
  /// infinity), which the request builder refuses.
  var nonFiniteName: String? { items.first { $0.value.holdsNonFinite }?.name }
}

extension UUID: QueryValueConvertible {
  /// The canonical uppercase form.
  public var queryValue: QueryValue { .string(uuidString) }
}

extension Array: QueryValueConvertible where Element: QueryValueConvertible {
  /// A list of the elements' values.
  public var queryValue: QueryValue { .list(map(\.queryValue)) }
}

extension Optional: QueryValueConvertible where Wrapped: QueryValueConvertible {
  /// The wrapped value, or ``QueryValue/absent`` for `nil`.
  public var queryValue: QueryValue { self?.queryValue ?? .absent }
}
