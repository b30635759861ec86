import Foundation

extension HTTPResponse {
  /// The body's length as the head announces it to a request made with `method`: its
  /// `Content-Length`, when no content coding changes what arrives (the transport undoes
  /// gzip and the like), no `Transfer-Encoding` frames the body instead (it overrides
  /// `Content-Length`, RFC 9112 §6.3) and the answer has a body at all; `nil` when unknown, a
  /// number that is not a length included.
  package func announcedBodyLength(for method: HTTPMethod = .get) -> Int64? {
    guard method != .head, status >= 200, status != 204, status != 304,
      !headers.contains("Transfer-Encoding")
    else { return nil }
    let coding = headers["Content-Encoding"]?.lowercased()
    guard coding == nil || coding == "identity",
      let text = headers["Content-Length"], let length = Int64(text), length >= 0
    else { return nil }
    return length
  }
}
