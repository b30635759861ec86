import Foundation

/// What a transport answers: the response head and its body as a stream of chunks.
public struct TransportResponse: Sendable {
  /// Status, headers and the URL that answered (after redirects); its `body` is empty.
  public var head: HTTPResponse
  /// The body, read once.
  public var body: TransportResponseBody

  /// A response; `head`'s own body, if any, is ignored in favour of `body`.
  public init(head: HTTPResponse, body: TransportResponseBody) {
    var head = head
    head.body = Data()
    self.head = head
    self.body = body
  }

  /// A whole response in memory (the stub's answers, tests): `package`, a transport of your
  /// own writes `TransportResponse(head: response, body: TransportResponseBody(data))`.
  package init(_ response: HTTPResponse) {
    self.init(head: response, body: TransportResponseBody(response.body))
  }
}
