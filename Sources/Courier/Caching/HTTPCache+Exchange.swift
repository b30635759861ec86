import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPCache {
  /// What the cache does with one request.
  enum Plan: Sendable {
    /// A stored response answers; nothing is sent.
    case answer(HTTPResponse)
    /// The request fails without being sent (``Policy/onlyCache`` with nothing usable).
    case fail(HTTPError)
    /// The request goes to the server, with the stored response's validators added when
    /// `validating` is the response it revalidates; `stale` is the stored response that may
    /// stand in for a failure (`stale-if-error`).
    case send(URLRequest, validating: CacheEntry?, stale: CacheEntry?)
    /// A stale stored response answers now (`stale-while-revalidate`), and the request goes
    /// to the server in the background, with its validators when it has some, to refresh it.
    case answerThenRevalidate(HTTPResponse, URLRequest, validating: CacheEntry?)
  }

  /// Request fields that make a request the caller's own conditional or partial one,
  /// which the cache leaves alone.
  static let callerConditions = [
    "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range",
  ]

  /// Whether the cache answers `request`: a `GET` with no conditions of the caller's own.
  static func answers(_ request: URLRequest) -> Bool {
    (request.httpMethod ?? "GET") == "GET"
      && !callerConditions.contains { request.value(forHTTPHeaderField: $0) != nil }
  }

  /// What to do with `request` (a `GET` the cache answers) under `policy`, when at most
  /// `maximumBytes` of body are accepted.
  func plan(
    for request: URLRequest, key: CacheKey, policy: Policy, maximumBytes: Int?
  ) -> Plan {
    let now = clock()
    let control = CacheControl(request: request)
    let entry = stored(for: key, maximumBytes: maximumBytes)
    if policy == .onlyCache || control.has("only-if-cached") {
      guard let entry, entry.isUsableOffline(at: now) else {
        return .fail(
          .transport(.resourceUnavailable, reason: "the cache holds no usable response"))
      }
      let fresh = entry.isFresh(at: now, request: control)
      return .answer(
        entry.response(at: now, requestURL: request.url, status: fresh ? .hit : .stale))
    }
    guard policy != .reload, let entry else {
      return .send(request, validating: nil, stale: nil)
    }
    if policy == .useCache, entry.isFresh(at: now, request: control) {
      let status: Status = entry.lifetime > entry.age(at: now) ? .hit : .stale
      return .answer(entry.response(at: now, requestURL: request.url, status: status))
    }
    let conditions = entry.conditions
    var conditional = request
    for field in conditions { conditional.setValue(field.value, forHTTPHeaderField: field.name) }
    let validating = conditions.isEmpty ? nil : entry
    if policy == .useCache, entry.servesStaleWhileRevalidating(at: now, request: control) {
      let stale = entry.response(at: now, requestURL: request.url, status: .stale)
      return .answerThenRevalidate(stale, conditional, validating: validating)
    }
    return .send(conditional, validating: validating, stale: entry)
  }

  /// `stale` as the answer to a request that failed with `error` or a 5xx (RFC 5861 §4),
  /// when its `stale-if-error` window, or the request's, covers how stale it is now.
  func standIn(_ stale: CacheEntry?, for request: URLRequest) -> HTTPResponse? {
    let now = clock()
    guard let stale, stale.servesStaleOnError(at: now, request: CacheControl(request: request))
    else { return nil }
    return stale.response(at: now, requestURL: request.url, status: .stale)
  }

  /// What the server's answer to a request the cache planned becomes.
  enum Outcome: Sendable {
    /// The answer for the caller.
    case response(HTTPResponse)
    /// A `304` that does not confirm the stored response (another `ETag`, or another URL's
    /// answer, a redirect's): the stored one is dropped, and the request must be sent again
    /// without conditions.
    case sendAgain
  }

  /// Takes the server's `response` to `request` (as sent, with any validators the plan
  /// added), which revalidated `validated`: a `304` refreshes the stored response and
  /// answers with it; any other response is stored when RFC 9111 allows.
  func received(
    _ response: HTTPResponse, for request: URLRequest, key: CacheKey, validated: CacheEntry?,
    stale: CacheEntry? = nil, requestTime: Date
  ) -> Outcome {
    let now = clock()
    if [500, 502, 503, 504].contains(response.status), let standIn = standIn(stale, for: request) {
      return .response(standIn)
    }
    // The cache sees the answer a request's redirects led to, not each hop: a response from
    // another URL is not this URL's to store or to confirm, as the redirect (not stored)
    // may lead elsewhere next time.
    let redirected = response.redirected
    if response.status == 304, let validated {
      var otherTag = false
      if let etag = response.headers["ETag"], let stored = validated.headers["ETag"] {
        otherTag = Self.weakTag(etag) != Self.weakTag(stored)
      }
      if redirected || otherTag {
        remove(validated)
        return .sendAgain
      }
      var refreshed = validated.refreshed(by: response, requestTime: requestTime, responseTime: now)
      // The 304's `Vary` is the stored response's now: `*` matches no later request (§4.1),
      // other names select it by this request's values of them.
      let varyNames = CacheKey.varyNames(refreshed.headers)
      if refreshed.control.has("no-store") || varyNames.contains("*") {
        remove(validated)
      } else {
        if varyNames != validated.metadata.varyNames {
          remove(validated)
          refreshed.metadata.varyNames = varyNames
          refreshed.metadata.variantKey = key.variant(for: varyNames)
        }
        store(refreshed, rules: key.rules)
      }
      var answer = refreshed.response(at: now, requestURL: request.url, status: .revalidated)
      // The fields a qualified `no-cache` names are never stored, but this 304 is the
      // server's own word: the values it carries for them reach the caller (RFC 9111 §5.2.2.4).
      let hop = CacheEntry.connectionSpecific(response.headers)
      for field in response.headers {
        let name = field.name.lowercased()
        if refreshed.unstoredNames.contains(name), !hop.contains(name) {
          answer.headers.add(field.name, field.value)
        }
      }
      return .response(answer)
    }
    var response = response
    response.cacheStatus = .miss
    if !redirected, response.bodyCutPast == nil,
      let entry = storable(response, for: request, key: key, requestTime: requestTime, now: now)
    {
      store(entry, rules: key.rules)
    } else if let validated {
      remove(validated)
    }
    return .response(response)
  }

  /// After `response` to an unsafe request (not `GET`, `HEAD`, `OPTIONS` or `TRACE`): a
  /// 2xx or 3xx removes what is stored for the request's URL, and for the `Location` and
  /// `Content-Location` it names on the same origin (RFC 9111 §4.4).
  func invalidate(after response: HTTPResponse, to request: URLRequest) {
    let method = (request.httpMethod ?? "GET").uppercased()
    guard !["GET", "HEAD", "OPTIONS", "TRACE"].contains(method),
      (200..<400).contains(response.status)
    else { return }
    remove(primary: CacheKey.primary(for: request.url, salt: salt))
    for name in ["Location", "Content-Location"] {
      guard let value = response.headers[name],
        let target = URL(string: value, relativeTo: request.url)?.absoluteURL,
        URLOrigin.same(target, request.url)
      else { continue }
      remove(primary: CacheKey.primary(for: target, salt: salt))
    }
  }

  // MARK: - Storing

  /// The entry to store for `response`, or `nil` when RFC 9111 §3 does not allow storing it.
  private func storable(
    _ response: HTTPResponse, for request: URLRequest, key: CacheKey, requestTime: Date,
    now: Date
  ) -> CacheEntry? {
    let control = CacheControl(response.headers)
    let requestControl = CacheControl(request: request)
    let varyNames = CacheKey.varyNames(response.headers)
    guard (200..<600).contains(response.status), response.status != 206,
      response.status != 304, !control.has("no-store"), !requestControl.has("no-store"),
      !varyNames.contains("*")
    else { return nil }
    let explicit =
      control.has("max-age") || control.has("public") || control.has("private")
      || response.headers.contains("Expires")
    guard explicit || CacheEntry.heuristicallyCacheable.contains(response.status) else {
      return nil
    }
    // Every field but those of one connection (RFC 9111 §3.1), `Set-Cookie` included: it
    // is replayed on a hit, as browsers' caches do, and keeps the entry off disk (`store`).
    // `Transfer-Encoding` is one of those, and it overrides a `Content-Length` beside it,
    // which then need not match the body (RFC 9112 §6.3): that goes too, as a forwarder
    // removes it, so a hit never replays a length its stored body does not have.
    var skipped = CacheEntry.connectionSpecific(response.headers)
    if response.headers.contains("Transfer-Encoding") { skipped.insert("content-length") }
    let metadata = CacheEntry.Metadata(
      primaryKey: key.primary, variantKey: key.variant(for: varyNames), status: response.status,
      headers: response.headers.filter { !skipped.contains($0.name.lowercased()) }
        .map { [$0.name, $0.value] },
      url: response.url == request.url ? nil : response.url, requestTime: requestTime,
      responseTime: now, varyNames: varyNames)
    return CacheEntry(metadata: metadata, body: response.body)
  }

  /// The newest stored response that `key` selects (same credentials, same values of the
  /// headers its `Vary` names) and whose body fits `maximumBytes`: from memory, else from
  /// disk (and then kept in memory too).
  func stored(for key: CacheKey, maximumBytes: Int?) -> CacheEntry? {
    func matches(_ entry: CacheEntry) -> Bool {
      entry.metadata.variantKey == key.variant(for: entry.metadata.varyNames)
        && entry.body.count <= (maximumBytes ?? .max)
    }
    func selected(_ entries: [CacheEntry]) -> CacheEntry? {
      entries.max { $0.metadata.responseTime < $1.metadata.responseTime }
    }
    if let entry = selected(memory.entries(for: key.primary, matching: matches)) {
      return entry
    }
    guard let disk, let entry = selected(disk.entries(for: key.primary, matching: matches))
    else { return nil }
    memory.store(entry)
    return entry
  }

  /// Stores `entry` in memory and on disk — but only in memory when it holds a credential
  /// under `rules`: a field that is one (`Set-Cookie`), a URL it would write (where a
  /// redirect led, a `Location`, a `Link`'s target) that carries one, or a value the request carried as one,
  /// echoed in a field or the body (an account page showing its API key; a value under 8
  /// bytes, such as a cookie's `en` or `1`, is found in ordinary text by chance and is not
  /// looked for). Nothing on disk holds a credential.
  private func store(_ entry: CacheEntry, rules: Credentials) {
    memory.store(entry)
    guard let disk else { return }
    let secrets = rules.secrets.filter { $0.utf8.count >= 8 }
    guard !entry.headers.contains(where: { rules.isCredential($0.name) }),
      !secrets.contains(where: { secret in
        entry.headers.contains { $0.value.contains(secret) }
          || entry.body.range(of: Data(secret.utf8)) != nil
      })
    else {
      disk.remove(primary: entry.metadata.primaryKey, variant: entry.metadata.variantKey)
      return
    }
    // Where a redirect led, and every URL a field holds (a `Location`, a `Link`'s targets).
    let fields = entry.headers.fields.flatMap { field in
      Redaction.urlRanges(inField: field.name, value: field.value).map { field.value[$0] }
    }
    let urls = ([entry.metadata.url?.absoluteString] + fields.map(String.init))
      .compactMap { $0 }.compactMap { URL(string: $0) }
    guard !urls.contains(where: { rules.describe($0) != $0.absoluteString }) else {
      disk.remove(primary: entry.metadata.primaryKey, variant: entry.metadata.variantKey)
      return
    }
    disk.store(entry)
  }

  private func remove(_ entry: CacheEntry) {
    memory.remove(entry.metadata.primaryKey, variant: entry.metadata.variantKey)
    disk?.remove(primary: entry.metadata.primaryKey, variant: entry.metadata.variantKey)
  }

  /// An entity tag without its weakness mark, for the weak comparison (RFC 9110 §8.8.3.2).
  static func weakTag(_ tag: String) -> String {
    let trimmed = tag.trimmingCharacters(in: .whitespaces)
    return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
  }
}
