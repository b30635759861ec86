import Foundation

/// The Suite's command line: `Suite CASE VARIANT [--name value]…`.
struct Arguments {
  /// The benchmark case: `json`, `download`, `paging`, `coalescing`.
  let benchmark: String
  /// The variant within the case: `raw`, `courier`, `ahc`, …
  let variant: String
  private let options: [String: String]

  /// Parses `CommandLine.arguments`.
  init(_ arguments: [String] = CommandLine.arguments) throws {
    let words = Array(arguments.dropFirst())
    guard words.count >= 2 else { throw SuiteError.usage }
    benchmark = words[0]
    variant = words[1]
    var options: [String: String] = [:]
    var rest = words.dropFirst(2).makeIterator()
    while let name = rest.next() {
      guard name.hasPrefix("--"), let value = rest.next() else { throw SuiteError.usage }
      options[String(name.dropFirst(2))] = value
    }
    self.options = options
  }

  /// The option's value, or `fallback`.
  func string(_ name: String, default fallback: String) -> String {
    options[name] ?? fallback
  }

  /// The option's value as an integer, or `fallback`.
  func int(_ name: String, default fallback: Int) throws -> Int {
    guard let text = options[name] else { return fallback }
    guard let value = Int(text) else { throw SuiteError.badOption(name, text) }
    return value
  }

  /// The option's value as a URL; required.
  func url(_ name: String) throws -> URL {
    guard let text = options[name], let url = URL(string: text) else {
      throw SuiteError.missingOption(name)
    }
    return url
  }
}

/// Why the Suite stopped.
enum SuiteError: Error, CustomStringConvertible {
  case usage
  case missingOption(String)
  case badOption(String, String)
  case unknownVariant(String, String)
  case unexpected(String)

  var description: String {
    switch self {
    case .usage:
      "usage: Suite json|download|paging|coalescing VARIANT [--url URL] [--requests N] …"
    case .missingOption(let name): "missing --\(name)"
    case .badOption(let name, let value): "--\(name) \(value) is not a number"
    case .unknownVariant(let benchmark, let variant): "\(benchmark) has no variant \(variant)"
    case .unexpected(let what): what
    }
  }
}
