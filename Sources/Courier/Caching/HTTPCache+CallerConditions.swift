import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPCache {
  /// The answer a fresh stored response gives a `GET` that carries the caller's own
  /// `If-None-Match` or `If-Modified-Since`, or one byte range (RFC 9111 §4.3.2, RFC 9110
  /// §13.2.2 and §14): `304 Not Modified` when the validators match; otherwise the part of
  /// the stored body the range asks for (`206`, with `Content-Range`), or the whole stored
  /// response. `nil` — the request goes to the server as it is — when nothing fresh is
  /// stored, the policy is not ``Policy/useCache``, or the request asks for what a stored
  /// response cannot settle (`If-Match`, `If-Unmodified-Since`, `If-Range`, several ranges,
  /// a range past the end).
  func answerCallerConditions(
    _ request: URLRequest, key: CacheKey, policy: Policy, maximumBytes: Int?
  ) -> HTTPResponse? {
    let field = { (name: String) in request.value(forHTTPHeaderField: name) }
    guard policy == .useCache, (request.httpMethod ?? "GET") == "GET",
      field("If-Match") == nil, field("If-Unmodified-Since") == nil, field("If-Range") == nil
    else { return nil }
    let now = clock()
    guard let entry = stored(for: key, maximumBytes: maximumBytes), entry.metadata.status == 200,
      entry.isFresh(at: now, request: CacheControl(request: request))
    else { return nil }
    let stored = entry.response(at: now, requestURL: request.url, status: .hit)
    if let tags = field("If-None-Match") {
      if Self.matches(tags, etag: stored.headers["ETag"]) { return Self.notModified(stored) }
    } else if let since = field("If-Modified-Since").flatMap({ HTTPDate.parse($0) }),
      let modified = stored.headers["Last-Modified"].flatMap({ HTTPDate.parse($0) }),
      modified <= since
    {
      return Self.notModified(stored)
    }
    guard let range = field("Range") else { return stored }
    return Self.part(of: stored, range: range)
  }

  /// Whether an `If-None-Match` value names `etag` (weak comparison) or is `*`.
  static func matches(_ tags: String, etag: String?) -> Bool {
    if tags.trimmingCharacters(in: .whitespaces) == "*" { return etag != nil }
    guard let etag else { return false }
    return tags.split(separator: ",").contains { weakTag(String($0)) == weakTag(etag) }
  }

  /// A `304` for `stored`: the fields a `200` would have carried that RFC 9110 §15.4.5
  /// names, no body.
  static func notModified(_ stored: HTTPResponse) -> HTTPResponse {
    let kept: Set<String> = [
      "cache-control", "content-location", "date", "etag", "expires", "vary", "last-modified",
      "age",
    ]
    var response = stored
    response.status = 304
    response.body = Data()
    response.headers = HTTPHeaders(stored.headers.filter { kept.contains($0.name.lowercased()) })
    return response
  }

  /// `stored` cut to one satisfiable `bytes=` range as a `206`, or `nil` for what the
  /// server should answer (several ranges, another unit, a range past the end).
  static func part(of stored: HTTPResponse, range: String) -> HTTPResponse? {
    let spec = range.trimmingCharacters(in: .whitespaces)
    guard spec.lowercased().hasPrefix("bytes="), !spec.contains(",") else { return nil }
    let bounds = spec.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
      .map { $0.trimmingCharacters(in: .whitespaces) }
    let length = stored.body.count
    guard bounds.count == 2, length > 0 else { return nil }
    let first: Int
    let last: Int
    if bounds[0].isEmpty {
      guard let suffix = Int(bounds[1]), suffix > 0 else { return nil }
      (first, last) = (max(0, length - suffix), length - 1)
    } else {
      guard let start = Int(bounds[0]), start < length else { return nil }
      let end = bounds[1].isEmpty ? length - 1 : Int(bounds[1])
      guard let end, end >= start else { return nil }
      (first, last) = (start, min(end, length - 1))
    }
    var part = stored
    part.status = 206
    part.body = stored.body.subdata(in: first..<last + 1)
    part.headers["Content-Range"] = "bytes \(first)-\(last)/\(length)"
    part.headers["Content-Length"] = "\(part.body.count)"
    return part
  }
}
