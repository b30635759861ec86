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

  /// Takes the framing fields out of a request head as middleware left it, by the same rule
  /// as ``removeFraming(from:body:)`` for `body`: a middleware's own `Content-Length` or
  /// `Transfer-Encoding` would disagree with what goes on the wire as much as an endpoint's.
  static func removeFraming(from head: inout URLRequest, body: TransportRequestBody?)
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
