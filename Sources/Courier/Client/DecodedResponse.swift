/// A decoded answer together with the response it came from.
///
/// ```swift
/// let result = try await client.response(for: MovieApi.popular(page: 1))
/// print(result.value.results.count, result.response.headers["X-RateLimit-Remaining"] ?? "-")
/// ```
public struct DecodedResponse<Value: Sendable>: Sendable {
  /// The decoded answer.
  public var value: Value
  /// Status, headers, body bytes and URL.
  public var response: HTTPResponse

  /// Creates a decoded response.
  public init(value: Value, response: HTTPResponse) {
    self.value = value
    self.response = response
  }

  /// The status code.
  public var status: Int { response.status }

  /// The response headers.
  public var headers: HTTPHeaders { response.headers }
}
