import Courier
import Foundation

/// A resource the loopback server serves as a static file server does: with its
/// validators (`ETag`, `Last-Modified`) and `Cache-Control`, answering a conditional
/// request with `304 Not Modified` and a range request with `206 Partial Content` (or
/// `416` for a range past the end) — what an HTTP cache and a resumed download need to be
/// tested against.
///
/// ```swift
/// let resource = LoopbackResource(body: Data("hello".utf8), etag: "\"v1\"", cacheControl: "max-age=60")
/// let server = try LoopbackServer { request, response in
///   try await resource.serve(request, with: response)
/// }
/// ```
public struct LoopbackResource: Sendable {
  /// The representation's bytes.
  public var body: Data
  /// Its entity tag, quoted (`"v1"` or `W/"v1"`), or `nil` for none.
  public var etag: String?
  /// When it last changed, or `nil` for no `Last-Modified`.
  public var lastModified: Date?
  /// The `Cache-Control` value, or `nil` for none.
  public var cacheControl: String?
  /// More headers to send with every answer (`Vary`, `Expires`…).
  public var headers: HTTPHeaders
  /// Whether it answers `Range` requests (`Accept-Ranges: bytes`).
  public var acceptsRanges: Bool

  /// A resource with the given body and metadata.
  public init(
    body: Data, etag: String? = nil, lastModified: Date? = nil, cacheControl: String? = nil,
    headers: HTTPHeaders = [:], acceptsRanges: Bool = true
  ) {
    self.body = body
    self.etag = etag
    self.lastModified = lastModified
    self.cacheControl = cacheControl
    self.headers = headers
    self.acceptsRanges = acceptsRanges
  }

  /// Answers `request`: `304` when its `If-None-Match` (or, without one, its
  /// `If-Modified-Since`) still holds; `206` with `Content-Range` for a `Range` of the form
  /// `bytes=N-` or `bytes=N-M` whose `If-Range`, if any, still holds; `416` for a range that
  /// starts past the end; `200` with the whole body otherwise.
  ///
  /// - Parameters:
  ///   - request: The request to answer.
  ///   - response: Where the answer goes.
  ///   - closingAfter: When given, the connection is closed once that many body bytes have
  ///     been sent (the head promises them all): a connection that drops.
  ///   - beforeClosing: Awaited before that close, e.g. until the client has seen the
  ///     bytes.
  public func serve(
    _ request: LoopbackRequest, with response: LoopbackResponse, closingAfter: Int? = nil,
    beforeClosing: (@Sendable () async -> Void)? = nil
  ) async throws {
    var head = headers
    head["Date"] = Self.format(Date())
    if let etag { head["ETag"] = etag }
    if let lastModified { head["Last-Modified"] = Self.format(lastModified) }
    if let cacheControl { head["Cache-Control"] = cacheControl }
    if acceptsRanges { head["Accept-Ranges"] = "bytes" }
    if isNotModified(request) {
      try await response.send(status: 304, headers: head)
      return
    }
    var status = 200
    var bytes = body
    if let range = range(of: request) {
      guard range.lowerBound < body.count else {
        head["Content-Range"] = "bytes */\(body.count)"
        try await response.send(status: 416, headers: head)
        return
      }
      status = 206
      let upper = min(range.upperBound, body.count - 1)
      head["Content-Range"] = "bytes \(range.lowerBound)-\(upper)/\(body.count)"
      bytes = body.subdata(in: range.lowerBound..<(upper + 1))
    }
    guard let closingAfter else {
      try await response.send(status: status, headers: head, body: bytes)
      return
    }
    try await response.writeHead(status: status, headers: head, contentLength: bytes.count)
    try await response.write(bytes.prefix(closingAfter))
    await beforeClosing?()
    response.closeConnection()
  }

  /// Whether `request`'s conditions say the client's copy is current.
  private func isNotModified(_ request: LoopbackRequest) -> Bool {
    if let condition = request.headers["If-None-Match"] {
      guard let etag else { return false }
      return condition.split(separator: ",").contains { tag in
        let tag = tag.trimmingCharacters(in: .whitespaces)
        return tag == "*" || Self.weak(tag) == Self.weak(etag)
      }
    }
    guard let since = request.headers["If-Modified-Since"].flatMap(Self.parse),
      let lastModified
    else { return false }
    return lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
  }

  /// The byte range `request` asks for, when ranges are served and its `If-Range` (an
  /// `ETag`, compared strongly, or a date) still holds.
  private func range(of request: LoopbackRequest) -> ClosedRange<Int>? {
    guard acceptsRanges, request.method == "GET",
      let value = request.headers["Range"], value.hasPrefix("bytes=")
    else { return nil }
    if let condition = request.headers["If-Range"] {
      if condition.hasPrefix("\"") || condition.hasPrefix("W/") {
        guard let etag, !etag.hasPrefix("W/"), condition == etag else { return nil }
      } else {
        guard let lastModified, let date = Self.parse(condition),
          Int(lastModified.timeIntervalSince1970) == Int(date.timeIntervalSince1970)
        else { return nil }
      }
    }
    let bounds = value.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
    guard bounds.count == 2, let lower = Int(bounds[0]) else { return nil }
    let upper = bounds[1].isEmpty ? Int.max - 1 : Int(bounds[1])
    guard let upper, upper >= lower else { return nil }
    return lower...upper
  }

  private static func weak(_ tag: String) -> String {
    tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
  }

  /// `date` as an HTTP date.
  public static func format(_ date: Date) -> String {
    HTTPDate.format(date)
  }

  private static func parse(_ text: String) -> Date? {
    HTTPDate.parse(text)
  }
}
