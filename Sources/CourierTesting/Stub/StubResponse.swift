import Courier
import Foundation

/// A canned answer for ``StubTransport``.
///
/// ```swift
/// StubResponse.json(#"{"page":1,"results":[]}"#)
/// StubResponse(status: 404, text: "not found")
/// StubResponse.chunks([part1, part2], every: .milliseconds(10), thenFailing: .transport(URLError(.networkConnectionLost)))
/// ```
public struct StubResponse: Sendable {
  /// The status code.
  public var status: Int
  /// The response headers.
  public var headers: HTTPHeaders
  /// The body bytes (all the chunks, joined).
  public var body: Data {
    get { chunks.count == 1 ? chunks[0] : chunks.reduce(into: Data()) { $0.append($1) } }
    set { chunks = [newValue] }
  }
  /// The body as it is delivered: these chunks, in order.
  public var chunks: [Data]
  /// How long the stub waits before each chunk; `nil` for not at all.
  public var chunkDelay: Duration?
  /// The error the body ends with after its chunks (a dropped connection); `nil` for a
  /// body that ends normally.
  public var failure: HTTPError?

  /// A response with raw bytes.
  public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
    self.status = status
    self.headers = headers
    chunks = [body]
  }

  /// A response whose body is delivered as `chunks`, each after `delay`, then ends — with
  /// `failure` when given, as a connection dropped mid-body.
  public static func chunks(
    _ chunks: [Data], status: Int = 200, headers: HTTPHeaders = HTTPHeaders(),
    every delay: Duration? = nil, thenFailing failure: HTTPError? = nil
  ) -> StubResponse {
    var response = StubResponse(status: status, headers: headers)
    response.chunks = chunks
    response.chunkDelay = delay
    response.failure = failure
    return response
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
