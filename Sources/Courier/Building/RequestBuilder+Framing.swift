import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension RequestBuilder {
  /// Takes the body's framing fields out of a request's headers: Courier frames a body
  /// itself, from the body (a `Content-Length` when its length is known, chunked otherwise,
  /// on HTTP/1.1), and a caller's own field would disagree with what goes on the wire.
  ///
  /// A `Content-Length` the caller gave must be the body's length (`0` for no body), and a
  /// `Transfer-Encoding` must be `chunked` alone: either is then dropped, the body being
  /// framed as it would have been. Any other is refused with
  /// ``HTTPError/invalidRequest(reason:)``: a body sent with a length that is not its own is
  /// cut short, its rest read by the server as the next request, or waited for until the
  /// timeout; a transfer coding other than chunked (`gzip, chunked`) is one Courier does not
  /// apply.
  static func removeFraming(from headers: inout HTTPHeaders, body: TransportRequestBody?)
    throws(HTTPError)
  {
    let lengths = headers.values(for: "Content-Length")
    if !lengths.isEmpty {
      let actual = body == nil ? 0 : body?.length
      let given = ResponseHeadReader.contentLength(lengths)
      guard case .some(.some(let length)) = given, length == actual else {
        let told = lengths.joined(separator: ", ")
        let what = actual.map { "the body's \($0) bytes" } ?? "a body of no known length"
        throw .invalidRequest(
          reason: "the header Content-Length '\(told)' does not match \(what); Courier sets it "
            + "from the body, so leave it out")
      }
      headers.remove("Content-Length")
    }
    let codings = headers.values(for: "Transfer-Encoding")
    if !codings.isEmpty {
      let coding = codings[0].trimmingCharacters(in: .whitespaces).lowercased()
      guard codings.count == 1, coding == "chunked" else {
        throw .invalidRequest(
          reason: "the header Transfer-Encoding '\(codings.joined(separator: ", "))' is not "
            + "Courier's to apply: it frames the body itself (chunked when its length is not "
            + "known); to compress a body, compress it and set Content-Encoding")
      }
      headers.remove("Transfer-Encoding")
    }
  }

  /// Holds a request head as middleware left it to the rules the builder held `built` (the
  /// head before middleware) to: a method a middleware set must be a token, and every header
  /// field it added or changed must have a token for a name and no CR, LF or other control
  /// character in its value (`allHTTPHeaderFields` takes any, and libcurl sends a line break
  /// as it is: a header injected into the request); its framing fields are taken out by
  /// ``removeFraming(from:body:)``'s rule for `body`.
  static func checkAfterMiddleware(
    _ head: inout URLRequest, built: URLRequest, body: TransportRequestBody?
  ) throws(HTTPError) {
    if let method = head.httpMethod, method != built.httpMethod,
      method.isEmpty || !method.utf8.allSatisfy(HeaderValidation.isTokenByte)
    {
      throw .invalidRequest(reason: "a middleware's method is not a valid HTTP token")
    }
    let before = built.allHTTPHeaderFields ?? [:]
    var changed = HTTPHeaders()
    for (name, value) in head.allHTTPHeaderFields ?? [:] where before[name] != value {
      changed.add(name, value)
    }
    guard !changed.isEmpty else { return }
    try HeaderValidation.validate(changed)
    try removeFraming(from: &head, body: body)
  }

  /// Takes the framing fields out of a request head, by the same rule as
  /// ``removeFraming(from:body:)`` for `body`.
  private static func removeFraming(from head: inout URLRequest, body: TransportRequestBody?)
    throws(HTTPError)
  {
    let names = ["Content-Length", "Transfer-Encoding"]
    var fields = HTTPHeaders()
    for name in names {
      if let value = head.value(forHTTPHeaderField: name) { fields.add(name, value) }
    }
    guard !fields.isEmpty else { return }
    try removeFraming(from: &fields, body: body)
    for name in names { head.setValue(nil, forHTTPHeaderField: name) }
  }
}
