import Foundation

/// What a transport answers: the response head and its body as a stream of chunks.
public struct TransportResponse: Sendable {
  /// Status, headers and the URL that answered (after redirects); its `body` is empty.
  public var head: HTTPResponse
  /// The body, read once.
  public var body: ResponseBody

  /// A response; `head`'s own body, if any, is ignored in favour of `body`.
  public init(head: HTTPResponse, body: ResponseBody) {
    var head = head
    head.body = Data()
    self.head = head
    self.body = body
  }

  /// A whole response in memory, e.g. from a test transport.
  public init(_ response: HTTPResponse) {
    self.init(head: response, body: ResponseBody(response.body))
  }
}
