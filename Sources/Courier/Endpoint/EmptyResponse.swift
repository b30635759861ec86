/// The answer of an endpoint whose response body is ignored (204 No Content and the like).
///
/// ```swift
/// struct DeleteRating: Endpoint {
///   typealias Response = EmptyResponse
///   let id: Int
///   var path: String { "movie/\(id)/rating" }
///   var method: HTTPMethod { .delete }
/// }
/// ```
public struct EmptyResponse: Sendable, Equatable, Decodable {
  /// Creates the empty value.
  public init() {}

  /// Decodes nothing: whatever the body holds is ignored.
  public init(from decoder: any Decoder) throws {}
}
