import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a transport sends: the request head, and the body apart from it.
///
/// The head is a `URLRequest` for its method, URL and headers (and, on Apple platforms, what
/// else a `URLRequest` says about the network to use); its own `httpBody` and
/// `httpBodyStream` are empty, because the body is ``body``.
public struct TransportRequest: Sendable {
  /// Method, URL and headers.
  public var head: URLRequest
  /// The body, if any.
  public var body: TransportRequestBody?

  /// A request; a body left in `head` (`httpBody`) is moved to ``body`` when `body` is `nil`.
  public init(head: URLRequest, body: TransportRequestBody? = nil) {
    var head = head
    var body = body
    if let data = head.httpBody {
      if body == nil, !data.isEmpty { body = .data(data) }
      head.httpBody = nil
    }
    // Each setter copies the request's storage (NSMutableURLRequest on Linux): only when set.
    if head.httpBodyStream != nil { head.httpBodyStream = nil }
    self.head = head
    self.body = body
  }

  /// The method.
  public var method: HTTPMethod { HTTPMethod(rawValue: head.httpMethod ?? "GET") }

  /// The URL: `package`, the head's own `url` for a transport of your own.
  package var url: URL? { head.url }
}
