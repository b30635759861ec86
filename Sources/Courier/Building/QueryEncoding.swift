/// How typed query values become text: the styles for arrays and booleans.
///
/// The same rules encode `application/x-www-form-urlencoded` bodies.
public struct QueryEncoding: Sendable, Equatable {
  /// How several values for one name are written.
  public enum ArrayStyle: Sendable, Equatable {
    /// `ids=1&ids=2` (the default; what most servers read as a list).
    case repeated
    /// `ids[]=1&ids[]=2` (PHP and Rails style).
    case brackets
    /// `ids=1,2` (each value encoded, joined by a literal comma).
    case commaSeparated
  }

  /// How booleans are written.
  public enum BooleanStyle: Sendable, Equatable {
    /// `true` / `false` (the default).
    case literal
    /// `1` / `0`.
    case numeric
  }

  /// The array style; `.repeated` by default.
  public var arrays: ArrayStyle
  /// The boolean style; `.literal` by default.
  public var booleans: BooleanStyle

  /// Creates an encoding.
  public init(arrays: ArrayStyle = .repeated, booleans: BooleanStyle = .literal) {
    self.arrays = arrays
    self.booleans = booleans
  }

  /// The query as percent-encoded `name=value` pairs joined by `&`, or `""` when empty.
  func encode(_ query: Query) -> String {
    var output = ""
    for item in query.items {
      append(item.value, named: item.name, to: &output)
    }
    return output
  }

  private func append(_ value: QueryValue, named name: String, to output: inout String) {
    switch value {
    case .absent:
      return
    case .string(let text):
      appendPair(name, PercentEncoding.encodeComponent(text), to: &output)
    case .bool(let flag):
      appendPair(name, text(for: flag), to: &output)
    case .list(let values):
      let flat = flatten(values)
      switch arrays {
      case .repeated:
        for element in flat { appendPair(name, element, to: &output) }
      case .brackets:
        for element in flat { appendPair(name + "[]", element, to: &output) }
      case .commaSeparated:
        if !flat.isEmpty { appendPair(name, flat.joined(separator: ","), to: &output) }
      }
    }
  }

  /// The list's values, encoded, with nested lists flattened and absent values dropped.
  private func flatten(_ values: [QueryValue]) -> [String] {
    values.flatMap { value -> [String] in
      switch value {
      case .absent: []
      case .string(let text): [PercentEncoding.encodeComponent(text)]
      case .bool(let flag): [text(for: flag)]
      case .list(let inner): flatten(inner)
      }
    }
  }

  private func text(for flag: Bool) -> String {
    switch booleans {
    case .literal: flag ? "true" : "false"
    case .numeric: flag ? "1" : "0"
    }
  }

  private func appendPair(_ name: String, _ encodedValue: String, to output: inout String) {
    if !output.isEmpty { output.append("&") }
    output.append(PercentEncoding.encodeComponent(name))
    output.append("=")
    output.append(encodedValue)
  }
}
