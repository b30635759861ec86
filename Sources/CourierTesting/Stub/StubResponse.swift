import Courier
import Foundation

/// A canned answer for ``StubTransport``.
///
/// ```swift
/// StubResponse.json(#"{"page":1,"results":[]}"#)
/// StubResponse(status: 404, text: "not found")
/// ```
public struct StubResponse: Sendable {
  /// The status code.
  public var status: Int
  /// The response headers.
  public var headers: HTTPHeaders
  /// The body bytes.
  public var body: Data

  /// A response with raw bytes.
  public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A `text/plain` response.
  public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), text: String) {
    var headers = headers
    if !headers.contains("Content-Type") { headers["Content-Type"] = "text/plain; charset=utf-8" }
    self.init(status: status, headers: headers, body: Data(text.utf8))
  }

  /// An `application/json` response from JSON text.
  public static func json(_ json: String, status: Int = 200, headers: HTTPHeaders = HTTPHeaders())
    -> StubResponse
  {
    var headers = headers
    if !headers.contains("Content-Type") { headers["Content-Type"] = "application/json" }
    return StubResponse(status: status, headers: headers, body: Data(json.utf8))
  }

  /// An `application/json` response encoding `value`.
  public static func json(
    encoding value: some Encodable,
    status: Int = 200,
    encoder: JSONEncoder = JSONEncoder()
  ) throws -> StubResponse {
    StubResponse(
      status: status, headers: ["Content-Type": "application/json"], body: try encoder.encode(value)
    )
  }

  /// A response with only a status (and an empty body).
  public static func status(_ status: Int) -> StubResponse {
    StubResponse(status: status)
  }
}
