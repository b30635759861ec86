/// A set of HTTP status codes, written as ranges or single codes: which answers count as
/// success for a client or an endpoint.
///
/// ```swift
/// configuration.acceptableStatusCodes = .success                 // 200..<300, the default
/// var acceptableStatusCodes: StatusCodes? { .success.union([304]) }
/// var acceptableStatusCodes: StatusCodes? { StatusCodes(200...499) }
/// ```
public struct StatusCodes: Sendable, Hashable, ExpressibleByArrayLiteral {
  private var ranges: [Range<Int>]

  /// The codes in the given half-open ranges.
  public init(_ ranges: Range<Int>...) {
    self.ranges = ranges
  }

  /// The codes in a closed range, e.g. `200...299`.
  public init(_ range: ClosedRange<Int>) {
    ranges = [Range(range)]
  }

  /// Single codes: `[200, 204, 304]`.
  public init(arrayLiteral codes: Int...) {
    ranges = codes.map { $0..<($0 + 1) }
  }

  /// `200..<300`.
  public static let success = StatusCodes(200..<300)

  /// Whether `status` is one of the codes.
  public func contains(_ status: Int) -> Bool {
    ranges.contains { $0.contains(status) }
  }

  /// The codes of both sets.
  public func union(_ other: StatusCodes) -> StatusCodes {
    var union = self
    union.ranges += other.ranges
    return union
  }
}
