import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a completed task, or a response head, becomes: an ``HTTPResponse`` or the
/// ``HTTPError`` that stands for it.
extension DataTaskCall {
  static func result(data: Data?, response: URLResponse?, error: (any Error)?)
    -> Result<HTTPResponse, HTTPError>
  {
    if let error {
      return .failure(HTTPError(transportFailure: error))
    }
    guard let http = response as? HTTPURLResponse else {
      return .failure(.transport(.badServerResponse, reason: "the answer is not HTTP's"))
    }
    // A Content-Length that cannot frame the body (ResponseHeadReader's one rule, RFC 9112
    // §6.3): not digits, or values that differ (two fields, which URLSession joins: `5, 10`),
    // where a proxy and a client may disagree on the body's end (response smuggling).
    if let length = http.value(forHTTPHeaderField: "Content-Length"),
      ResponseHeadReader.contentLength([length]) == nil
    {
      return .failure(ResponseHeadReader.invalidLength([length], url: http.url))
    }
    guard http.statusCode != 101 else {
      return .failure(ResponseHeadReader.unaskedSwitch(url: http.url))
    }
    var answer = HTTPResponse(head: http)
    answer.body = data ?? Data()
    return .success(answer)
  }

}

extension HTTPResponse {
  /// The head of `http`, and no body: for every answer URLSession gives (a data task's, the
  /// Apple WebSocket's upgrade or refusal, a background transfer's).
  ///
  /// URLSession hands headers over as a dictionary: the wire order is lost, and repeated
  /// fields (`Set-Cookie`) arrive joined by ", ". The fields are sorted by name, so that equal
  /// responses compare equal, and `Set-Cookie` is parted again for the cookie jar. Values are
  /// trimmed of the spaces and tabs around them (RFC 9112 §5: they are no part of the value),
  /// which URLSession on Linux leaves at their end.
  init(head http: HTTPURLResponse) {
    // Each name is lowercased once, not twice per comparison; names are cast from the
    // AnyHashable's base (a direct cast; `AnyHashable as? String` costs ~4x more).
    var keyed: [(key: String, field: HTTPHeaders.Field)] = []
    for (name, value) in http.allHeaderFields {
      if let name = name.base as? String ?? name as? String, let value = value as? String {
        let key = name.lowercased()
        let values = key == "set-cookie" ? SetCookie.parted(value) : [value]
        for value in values {
          let value = value.trimmingCharacters(in: Self.fieldWhitespace)
          keyed.append((key, HTTPHeaders.Field(name: name, value: value)))
        }
      }
    }
    keyed.sort { $0.key < $1.key }  // stable: parted Set-Cookie fields keep their order
    self.init(status: http.statusCode, headers: HTTPHeaders(keyed.map(\.field)), url: http.url)
  }

  /// The whitespace around a field value (RFC 9112 §5: OWS, spaces and tabs).
  private static let fieldWhitespace = CharacterSet(charactersIn: " \t")
}
