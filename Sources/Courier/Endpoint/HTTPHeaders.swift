/// An ordered collection of HTTP header fields whose names compare case-insensitively.
///
/// Order is kept as fields were added, and a name may appear more than once (`add`); a
/// request sends a name's fields as one, their values joined by commas (several `Cookie`
/// fields by `"; "`, as cookies are separated).
/// The subscript reads the first value for a name and replaces every field of that name.
///
/// ```swift
/// var headers: HTTPHeaders = ["Accept": "application/json"]
/// headers["accept"]                   // "application/json"
/// headers["X-Trace"] = "abc"          // replaces or appends
/// headers.add("Cache-Control", "no-cache")
/// ```
///
/// `description` redacts credentials (`Authorization`, `Cookie`, …), and so does what
/// `dump` or a `Mirror` shows, so headers can be logged or printed safely.
public struct HTTPHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral {
  /// One header field: a name as written and its value.
  public struct Field: Sendable, Equatable {
    /// The field name, with the case it was given.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a field.
    public init(name: String, value: String) {
      self.name = name
      self.value = value
    }

    /// Fields are equal when their names match case-insensitively and their values match.
    public static func == (lhs: Field, rhs: Field) -> Bool {
      lhs.value == rhs.value && HTTPHeaders.namesMatch(lhs.name, rhs.name)
    }
  }

  /// The fields in order.
  public private(set) var fields: [Field]

  /// Creates an empty collection.
  public init() {
    fields = []
  }

  /// Creates headers from fields in order; repeated names are kept.
  public init(_ fields: [Field]) {
    self.fields = fields
  }

  /// Creates headers from name–value pairs in order; repeated names are kept.
  public init(dictionaryLiteral elements: (String, String)...) {
    fields = elements.map { Field(name: $0.0, value: $0.1) }
  }

  /// The number of fields.
  public var count: Int { fields.count }

  /// Whether there are no fields.
  public var isEmpty: Bool { fields.isEmpty }

  /// The first value for `name`, compared case-insensitively; setting replaces every
  /// field of that name (in place of the first), and `nil` removes them.
  public subscript(name: String) -> String? {
    get { fields.first { Self.namesMatch($0.name, name) }?.value }
    set {
      guard let newValue else {
        remove(name)
        return
      }
      if let index = fields.firstIndex(where: { Self.namesMatch($0.name, name) }) {
        fields[index].value = newValue
        var next = index + 1
        while next < fields.count {
          if Self.namesMatch(fields[next].name, name) {
            fields.remove(at: next)
          } else {
            next += 1
          }
        }
      } else {
        fields.append(Field(name: name, value: newValue))
      }
    }
  }

  /// Every value for `name`, in order.
  public func values(for name: String) -> [String] {
    fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
  }

  /// Whether a field named `name` is present.
  public func contains(_ name: String) -> Bool {
    fields.contains { Self.namesMatch($0.name, name) }
  }

  /// Appends a field, keeping any existing fields of the same name.
  public mutating func add(_ name: String, _ value: String) {
    fields.append(Field(name: name, value: value))
  }

  /// Removes every field named `name`.
  public mutating func remove(_ name: String) {
    fields.removeAll { Self.namesMatch($0.name, name) }
  }

  /// Joins several `Cookie` fields into one, in place of the first, their values separated
  /// by `"; "`: a request carries one Cookie field (RFC 6265 §5.4; RFC 9113 §8.2.3 joins
  /// HTTP/2's split ones so), and joined by commas as other repeated fields are, its cookies
  /// would read as one whose value holds the rest (`a=1,b=2`).
  mutating func joinCookieFields() {
    var count = 0
    for field in fields where Self.namesMatch(field.name, "Cookie") { count += 1 }
    guard count > 1 else { return }
    self["Cookie"] = values(for: "Cookie").joined(separator: "; ")
  }

  /// Takes the spaces and tabs from around each value: they are no part of it (RFC 9110
  /// §5.5), HTTP/2 refuses a value that starts or ends with one (RFC 9113 §8.2.1), and
  /// URLSession on Linux drops a value made only of them.
  mutating func trimValues() {
    func isBlank(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 }
    for index in fields.indices {
      let bytes = fields[index].value.utf8
      guard let first = bytes.first, let last = bytes.last, isBlank(first) || isBlank(last)
      else { continue }
      let start = bytes.firstIndex { !isBlank($0) } ?? bytes.endIndex
      let end = bytes.lastIndex { !isBlank($0) }.map(bytes.index(after:)) ?? start
      fields[index].value = String(Substring(bytes[start..<Swift.max(start, end)]))
    }
  }

  /// These headers with `other`'s applied on top: a name present in `other` replaces
  /// every field of that name here; other names are kept in order.
  public func merging(_ other: HTTPHeaders) -> HTTPHeaders {
    guard !other.isEmpty else { return self }
    guard !isEmpty else { return other }
    var merged = HTTPHeaders(fields.filter { !other.contains($0.name) })
    merged.fields.append(contentsOf: other.fields)
    return merged
  }

  /// ASCII case-insensitive comparison of two field names.
  static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
    var left = lhs.utf8.makeIterator()
    var right = rhs.utf8.makeIterator()
    while true {
      switch (left.next(), right.next()) {
      case (nil, nil):
        return true
      case (let a?, let b?):
        if a != b && asciiLower(a) != asciiLower(b) { return false }
      default:
        return false
      }
    }
  }

  private static func asciiLower(_ byte: UInt8) -> UInt8 {
    (byte >= 65 && byte <= 90) ? byte + 32 : byte
  }
}

extension HTTPHeaders: Sequence {
  /// Iterates the fields in order.
  public func makeIterator() -> IndexingIterator<[Field]> {
    fields.makeIterator()
  }
}

extension HTTPHeaders: CustomStringConvertible {
  /// The fields one per line, with credential values shown as `<redacted>`.
  public var description: String {
    fields.map { "\($0.name): \(Redaction.headerValue($0.value, name: $0.name))" }
      .joined(separator: "\n")
  }
}
