import Courier
import Foundation

/// One parsed request as the loopback server saw it.
///
/// ```swift
/// // GET /3/movie/popular?page=2&q=a%2Bb
/// request.path                 // "/3/movie/popular"
/// request.queryValues("q")     // ["a+b"]
/// request.headers["accept"]    // "application/json"
/// ```
public struct LoopbackRequest: Sendable {
  /// The method, as sent: `"GET"`, `"POST"`, …
  public let method: String
  /// The request-target exactly as sent, e.g. `"/3/movie/popular?page=2&q=a%2Bb"`.
  public let target: String
  /// The percent-decoded path part of the target, e.g. `"/3/movie/popular"`.
  public let path: String
  /// The query items in order, repeated names kept, names and values percent-decoded.
  ///
  /// `+` stays `+` (it is not read as a space), and an item without `=` has the value `""`.
  public let queryItems: [(name: String, value: String)]
  /// The header fields in the order they were sent; names compare case-insensitively.
  public let headers: HTTPHeaders
  /// The body, de-chunked if the client sent it chunked; empty when there was none, and
  /// for a server that streams request bodies (read ``bodyChunks`` then).
  public let body: Data
  /// The body as it arrives, de-chunked: chunk by chunk for a ``LoopbackServer`` made with
  /// `streamsRequestBodies`, otherwise ``body`` as one chunk.
  public var bodyChunks: LoopbackRequestBody {
    LoopbackRequestBody(feed: streamed ?? .whole(body))
  }
  private let streamed: LoopbackRequestBody.Feed?

  init(
    method: String, target: String, headers: HTTPHeaders, body: Data,
    streamed: LoopbackRequestBody.Feed? = nil
  ) {
    self.method = method
    self.target = target
    self.headers = headers
    self.body = body
    self.streamed = streamed

    var rest = Substring(target)
    if let scheme = rest.range(of: "://"), !rest.hasPrefix("/") {
      // Absolute form, "http://host:port/path?query": keep what follows the authority.
      let afterScheme = rest[scheme.upperBound...]
      rest =
        afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }).map { afterScheme[$0...] } ?? ""
    }
    rest = rest.prefix { $0 != "#" }
    let pathPart = rest.prefix { $0 != "?" }
    path = Self.decoded(pathPart)
    queryItems = rest.dropFirst(pathPart.count + 1).split(separator: "&").map { item in
      guard let equals = item.firstIndex(of: "=") else { return (Self.decoded(item), "") }
      return (Self.decoded(item[..<equals]), Self.decoded(item[item.index(after: equals)...]))
    }
  }

  /// Every value of the query items named `name`, in order.
  public func queryValues(_ name: String) -> [String] {
    queryItems.filter { $0.name == name }.map(\.value)
  }

  /// `text` with percent-escapes decoded, or as it is if they do not decode to UTF-8.
  private static func decoded(_ text: Substring) -> String {
    String(text).removingPercentEncoding ?? String(text)
  }
}
