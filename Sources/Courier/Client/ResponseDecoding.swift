import Foundation

/// The default decoding behind ``Endpoint/decode(_:using:)``, chosen by the response type at
/// run time so that it serves enums and the generic ``Request`` alike.
enum ResponseDecoding {
  static func decode<Value>(
    _ type: Value.Type, from response: HTTPResponse, using decoder: JSONDecoder
  ) throws -> Value {
    let isEmpty = response.body.isEmpty || response.status == 204 || response.status == 205
    if let optional = Value.self as? any OptionalConvertible.Type {
      if isEmpty { return optional.none as! Value }
      // An optional read as JSON is the decoder's to read whole: JSON's `null` is `nil`.
      if acceptedMediaType(for: Value.self) != nil,
        let decodable = Value.self as? any Decodable.Type
      {
        return try decodeJSON(decodable, from: response.body, using: decoder) as! Value
      }
      return optional.wrapping(try decode(optional.wrappedType, from: response, using: decoder))
        as! Value
    }
    if Value.self == Data.self {
      return response.body as! Value
    }
    if Value.self == String.self {
      return try BodyText.decode(response.body, contentType: response.headers["Content-Type"])
        as! Value
    }
    if Value.self == EmptyResponse.self {
      return EmptyResponse() as! Value
    }
    guard let decodable = Value.self as? any Decodable.Type else {
      throw DecodingFailure(
        reason: "\(Value.self) is not Decodable, Data or String; implement decode(_:using:)")
    }
    if isEmpty {
      throw DecodingFailure(
        reason: "the body is empty (status \(response.status)); use EmptyResponse or an Optional"
          + " response type for answers without content")
    }
    return try decodeJSON(decodable, from: response.body, using: decoder) as! Value
  }

  /// The `Accept` value for answers of this type: JSON for `Decodable` types (and optionals
  /// of them) other than the raw ones, nothing otherwise.
  static func acceptedMediaType<Value>(for type: Value.Type) -> String? {
    if let optional = Value.self as? any OptionalConvertible.Type {
      return acceptedMediaType(for: optional.wrappedType)
    }
    if Value.self == Data.self || Value.self == String.self || Value.self == EmptyResponse.self {
      return nil
    }
    return Value.self is any Decodable.Type ? "application/json" : nil
  }

  private static func decodeJSON<T: Decodable>(
    _ type: T.Type, from data: Data, using decoder: JSONDecoder
  ) throws -> T {
    try decoder.decode(type, from: data)
  }
}

/// `Optional`, seen without its wrapped type, so an empty body can decode as `nil` and a
/// present one as the wrapped type.
protocol OptionalConvertible {
  static var none: Self { get }
  static var wrappedType: Any.Type { get }
  static func wrapping(_ value: Any) -> Self
}

extension Optional: OptionalConvertible {
  static var wrappedType: Any.Type { Wrapped.self }

  static func wrapping(_ value: Any) -> Self { value as? Wrapped }
}

/// A decoding failure with a reason a person can act on.
struct DecodingFailure: Error, CustomStringConvertible {
  var reason: String
  var description: String { reason }

  /// Readable text for any error thrown while decoding, naming the coding path for a
  /// `DecodingError`: "missing key 'title' at results[3]".
  static func describe(_ error: any Error, as type: Any.Type) -> String {
    if let failure = error as? DecodingFailure { return failure.reason }
    guard let error = error as? DecodingError else { return String(describing: error) }
    let detail: String
    switch error {
    case .keyNotFound(let key, let context):
      let path = CodingPathText.describe(context.codingPath + [key])
      detail = "missing key '\(key.stringValue)' at \(path)"
    case .typeMismatch(let expected, let context):
      detail =
        "expected \(expected) at \(CodingPathText.describe(context.codingPath)): "
        + context.debugDescription
    case .valueNotFound(let expected, let context):
      detail =
        "null where \(expected) was expected at \(CodingPathText.describe(context.codingPath))"
    case .dataCorrupted(let context):
      detail =
        "invalid data at \(CodingPathText.describe(context.codingPath)): "
        + context.debugDescription
    @unknown default:
      detail = String(describing: error)
    }
    return "decoding \(type): \(detail)"
  }
}
