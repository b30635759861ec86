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
    guard let http = response as? HTTPURLResponse, !hasConflictingLength(http) else {
      return .failure(.transport(URLError(.badServerResponse)))
    }
    // URLSession hands headers over as a dictionary: the wire order is lost, and repeated
    // fields (Set-Cookie) arrive joined by ", ". Sorting by name makes equal responses
    // compare equal.
    // Each name is lowercased once, not twice per comparison; names are cast from the
    // AnyHashable's base (a direct cast; `AnyHashable as? String` costs ~4x more).
    var keyed: [(key: String, field: HTTPHeaders.Field)] = []
    for (name, value) in http.allHeaderFields {
      if let name = name.base as? String ?? name as? String, let value = value as? String {
        let key = name.lowercased()
        // Set-Cookie fields, joined by URLSession, are parted again for the cookie jar.
        let values = key == "set-cookie" ? SetCookie.parted(value) : [value]
        for value in values { keyed.append((key, HTTPHeaders.Field(name: name, value: value))) }
      }
    }
    keyed.sort { $0.key < $1.key }  // stable: parted Set-Cookie fields keep their order
    let headers = HTTPHeaders(keyed.map(\.field))
    return .success(
      HTTPResponse(status: http.statusCode, headers: headers, body: data ?? Data(), url: http.url))
  }

  /// Whether the head carries `Content-Length` values that differ (`5, 10`: two fields,
  /// which URLSession joins), which RFC 9112 §6.3 makes an unrecoverable error: the body's
  /// end cannot be known, and a proxy and a client may disagree on it (response smuggling).
  /// Repeated equal values (`5, 5`) are one length.
  static func hasConflictingLength(_ response: HTTPURLResponse) -> Bool {
    guard let value = response.value(forHTTPHeaderField: "Content-Length"), value.contains(",")
    else { return false }
    let values = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    return Set(values).count > 1
  }
}

extension HTTPResponse {
  /// The head of `http` as URLSession hands it over, its fields unsorted and unparted, and no
  /// body: for the Apple WebSocket's upgrade and a background transfer's response.
  init(head http: HTTPURLResponse) {
    var headers = HTTPHeaders()
    for (name, value) in http.allHeaderFields {
      if let name = name as? String, let value = value as? String { headers.add(name, value) }
    }
    self.init(status: http.statusCode, headers: headers, url: http.url)
  }
}
