import Foundation

/// One stored response: what was received, when, and for which request (its key and the
/// fingerprints of the headers it was selected by), with its freshness worked out from its
/// headers (RFC 9111 §4.2).
struct CacheEntry: Sendable {
  /// What is written to disk besides the body. Request header values appear only as
  /// digests, so a stored entry never holds a credential the request carried.
  struct Metadata: Codable, Sendable, Equatable {
    /// The digest of the request URL (``CacheKey/primary``).
    var primaryKey: String
    /// The digest of the credentials and `Vary` values (``CacheKey/variant(for:)``).
    var variantKey: String
    var status: Int
    /// The response headers as name–value pairs, in order.
    var headers: [[String]]
    /// The URL that answered, when a redirect made it other than the request's.
    var url: URL?
    var requestTime: Date
    var responseTime: Date
    /// The lowercased names in the response's `Vary`.
    var varyNames: [String]
  }

  var metadata: Metadata
  var body: Data
  /// The response headers.
  let headers: HTTPHeaders
  /// The response's `Cache-Control` directives.
  let control: CacheControl
  /// How long the response is fresh for, in seconds from its generation.
  let lifetime: Double
  /// Its age when it was received, in seconds (`corrected_initial_age`).
  let initialAge: Double

  /// An entry for a response received between `requestTime` and `responseTime`, without the
  /// fields its `no-cache` names (``unstoredNames``).
  init(metadata: Metadata, body: Data) {
    var metadata = metadata
    var headers = HTTPHeaders(
      metadata.headers.compactMap { pair in
        pair.count == 2 ? HTTPHeaders.Field(name: pair[0], value: pair[1]) : nil
      })
    let unstored = Self.unstoredNames(CacheControl(headers))
    if !unstored.isEmpty {
      headers = HTTPHeaders(headers.filter { !unstored.contains($0.name.lowercased()) })
      metadata.headers = headers.map { [$0.name, $0.value] }
    }
    self.metadata = metadata
    self.body = body
    self.headers = headers
    control = CacheControl(headers)
    let date = headers["Date"].flatMap(HTTPDate.parse) ?? metadata.responseTime
    lifetime = Self.lifetime(
      status: metadata.status, headers: headers, control: control, date: date)
    let apparentAge = max(0, metadata.responseTime.timeIntervalSince(date))
    let ageValue = Self.deltaSeconds(headers["Age"])
    let responseDelay = max(0, metadata.responseTime.timeIntervalSince(metadata.requestTime))
    initialAge = max(apparentAge, max(0, ageValue ?? 0) + responseDelay)
  }

  /// An `Age` value (RFC 9111 §5.1): delta-seconds, digits only, the first of a list, at
  /// most 2³¹; `nil` when it is not one.
  static func deltaSeconds(_ value: String?) -> Double? {
    guard let first = value?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces),
      !first.isEmpty, first.utf8.allSatisfy({ (48...57).contains($0) })
    else { return nil }
    return Double(first.prefix(10)).map { min($0, 2_147_483_648) } ?? 2_147_483_648
  }

  /// Status codes a cache may give a heuristic freshness (RFC 9110 §15.1).
  static let heuristicallyCacheable: Set<Int> = [
    200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501,
  ]
  /// The longest heuristic lifetime: a day, however old the resource.
  static let heuristicLimit: Double = 24 * 60 * 60

  /// The freshness lifetime (RFC 9111 §4.2.1): `max-age`; else `Expires` less `Date`; else,
  /// for a status that allows it or a `public` response, a tenth of the time since
  /// `Last-Modified` (§4.2.2), at most ``heuristicLimit``; else zero. An unreadable
  /// `max-age` or `Expires` makes it zero: stale at once. So do two `Expires` lines (§4.2.1
  /// allows either the first or stale): URLSession joins them into one value that is no
  /// date, so stale is what every transport can agree on.
  private static func lifetime(
    status: Int, headers: HTTPHeaders, control: CacheControl, date: Date
  ) -> Double {
    if let maxAge = control.seconds("max-age") { return maxAge.or(0) }
    let expires = headers.values(for: "Expires")
    if !expires.isEmpty {
      guard expires.count == 1, let expiry = HTTPDate.parse(expires[0]) else { return 0 }
      return max(0, expiry.timeIntervalSince(date))
    }
    guard heuristicallyCacheable.contains(status) || control.has("public"),
      let lastModified = headers["Last-Modified"].flatMap(HTTPDate.parse)
    else { return 0 }
    return min(heuristicLimit, max(0, date.timeIntervalSince(lastModified)) / 10)
  }

  /// The entry's age at `now`, in seconds (`current_age`, RFC 9111 §4.2.3).
  func age(at now: Date) -> Double {
    initialAge + max(0, now.timeIntervalSince(metadata.responseTime))
  }

  /// The lowercased names of the fields a qualified `no-cache="A, B"` lists (RFC 9111
  /// §5.2.2.4): the response may be reused, but without them, so they are never stored. The
  /// `Cache-Control` that names them is kept, so the entry reads the same when loaded again.
  static func unstoredNames(_ control: CacheControl) -> Set<String> {
    control.fieldNames("no-cache").subtracting(["cache-control"])
  }

  /// The names of the fields this entry was stored without (see ``unstoredNames(_:)``).
  var unstoredNames: Set<String> { Self.unstoredNames(control) }

  /// Whether the response may never be reused unvalidated: an unqualified `no-cache` (or
  /// `Pragma: no-cache`). A qualified one only keeps the fields it names out of the entry.
  var requiresValidation: Bool {
    control.has("no-cache") && control.fieldNames("no-cache").isEmpty
  }

  /// Whether the entry may answer without asking the server (``requiresValidation`` says
  /// never).
  func isFresh(at now: Date, request: CacheControl) -> Bool {
    guard !requiresValidation else { return false }
    let age = age(at: now)
    // RFC 8246: an immutable response is not revalidated within its lifetime, even when the
    // request asks (a reload's `no-cache` or `max-age=0`); ``HTTPCache/Policy/revalidate``
    // still does.
    if control.has("immutable"), lifetime > age { return true }
    guard !request.has("no-cache") else { return false }
    if let maxAge = request.seconds("max-age"), age > maxAge.or(0) { return false }
    let remaining = lifetime - age
    if let minFresh = request.seconds("min-fresh"), remaining < minFresh.or(.infinity) {
      return false
    }
    if remaining > 0 { return true }
    // A client may accept a stale answer (`max-stale`), unless the server forbids it.
    guard !control.has("must-revalidate"), let maxStale = request.seconds("max-stale") else {
      return false
    }
    return -remaining <= maxStale.or(.infinity)
  }

  /// Whether the entry, stale now, may answer in place of a server error or a failed
  /// request (RFC 5861 §4): within the `stale-if-error` seconds of the response or of the
  /// request past its freshness, unless the response forbids serving it stale.
  func servesStaleOnError(at now: Date, request: CacheControl) -> Bool {
    guard !requiresValidation, !control.has("must-revalidate") else { return false }
    let window = max(
      control.seconds("stale-if-error")?.or(0) ?? 0, request.seconds("stale-if-error")?.or(0) ?? 0)
    return age(at: now) - lifetime <= window && window > 0
  }

  /// Whether the entry, stale now, may answer at once while it is revalidated in the
  /// background (RFC 5861 §3): within the response's `stale-while-revalidate` seconds past
  /// its freshness, unless the response forbids serving it stale or the request asks for a
  /// validated or younger response (`no-cache`, `max-age`).
  func servesStaleWhileRevalidating(at now: Date, request: CacheControl) -> Bool {
    guard !requiresValidation, !control.has("must-revalidate"), !request.has("no-cache"),
      request.seconds("max-age") == nil,
      let window = control.seconds("stale-while-revalidate")?.or(0), window > 0
    else { return false }
    return age(at: now) - lifetime <= window
  }

  /// Whether the entry may be used at all without the server: what
  /// ``HTTPCache/Policy/onlyCache`` serves. An unqualified `no-cache` forbids any use,
  /// `must-revalidate` a stale one.
  func isUsableOffline(at now: Date) -> Bool {
    guard !requiresValidation else { return false }
    return lifetime > age(at: now) || !control.has("must-revalidate")
  }

  /// The validators to ask the server with: `If-None-Match` for an `ETag`,
  /// `If-Modified-Since` for a `Last-Modified`; empty when the response had neither.
  var conditions: HTTPHeaders {
    var conditions = HTTPHeaders()
    if let etag = headers["ETag"] { conditions["If-None-Match"] = etag }
    if let lastModified = headers["Last-Modified"] {
      conditions["If-Modified-Since"] = lastModified
    }
    return conditions
  }

  /// The bytes it takes in memory, as measured (`Suite cache fill` against `fill-off`): the
  /// body, the headers twice (as stored and as parsed), and about 2 KiB of keys, parsed
  /// directives and bookkeeping.
  var cost: Int {
    body.count + 2048
      + 2 * metadata.headers.reduce(0) { $0 + $1.reduce(0) { $0 + $1.utf8.count + 16 } }
  }

  /// The stored response as an answer at `now`, with `Age` set to its current age
  /// (RFC 9111 §4), for a request to `requestURL`.
  func response(at now: Date, requestURL: URL?, status: HTTPCache.Status) -> HTTPResponse {
    var headers = headers
    headers["Age"] = String(Int(min(age(at: now), 2_147_483_648)))
    var response = HTTPResponse(
      status: metadata.status, headers: headers, body: body,
      url: metadata.url ?? requestURL)
    response.cacheStatus = status
    return response
  }

  /// The lowercased names of the fields in `headers` that describe one connection, not the
  /// response (RFC 9110 §7.6.1), which a cache neither stores nor takes from a 304 (RFC 9111
  /// §3.1): `Connection`, the fields it names, and the hop-by-hop fields of old.
  static func connectionSpecific(_ headers: HTTPHeaders) -> Set<String> {
    var names: Set<String> = [
      "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
    ]
    for value in headers.values(for: "Connection") {
      for name in value.split(separator: ",") {
        let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
        if !trimmed.isEmpty { names.insert(trimmed) }
      }
    }
    return names
  }

  /// This entry with its headers updated by a `304 Not Modified` (RFC 9111 §4.3.4): each
  /// field the 304 carries replaces the stored ones, except those that describe the stored
  /// body; the times, `Date` and `Age` are the 304's.
  func refreshed(by notModified: HTTPResponse, requestTime: Date, responseTime: Date)
    -> CacheEntry
  {
    let kept = Self.connectionSpecific(notModified.headers).union([
      "content-length", "content-encoding", "content-range",
    ])
    var headers = headers
    // The stored Age and Date described the old response; the 304's (or its arrival, when it
    // has no Date) describe the refreshed one.
    headers.remove("Age")
    headers.remove("Date")
    var replaced: Set<String> = []
    for field in notModified.headers where !kept.contains(field.name.lowercased()) {
      if replaced.insert(field.name.lowercased()).inserted { headers.remove(field.name) }
      headers.add(field.name, field.value)
    }
    var metadata = metadata
    metadata.headers = headers.map { [$0.name, $0.value] }
    metadata.requestTime = requestTime
    metadata.responseTime = responseTime
    return CacheEntry(metadata: metadata, body: body)
  }
}
