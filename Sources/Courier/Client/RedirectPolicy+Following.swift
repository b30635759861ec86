import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The one redirect decision, which ``HTTPClient`` runs above the transport: which statuses
/// redirect, what they do to the method and the body, where they may lead, how many may be
/// followed, and which headers go on to another origin.
extension RedirectPolicy {
  /// Whether this policy follows `head`: a redirect status with a `Location` that is not
  /// empty (an empty one is no target: the 3xx is the answer, as without one);
  /// ``request(after:to:hops:credentialNames:)`` then makes the next request, or refuses it.
  func follows(_ head: HTTPResponse) -> Bool {
    guard case .follow = self else { return false }
    return Self.redirectStatuses.contains(head.status)
      && Self.locations(of: head).contains { !$0.isEmpty }
  }

  /// The `Location` values of `head`, trimmed, each once: one field's, or several fields'.
  /// URLSession hands several fields over joined with ", ", which a URI reference never
  /// holds, so a value is split there too: both transports give the same values.
  private static func locations(of head: HTTPResponse) -> Set<String> {
    Set(
      head.headers.values(for: "Location").flatMap { $0.components(separatedBy: ", ") }
        .map { $0.trimmingCharacters(in: .whitespaces) })
  }

  /// The request sent next when `head` answered `request`, following the policy; `nil` when
  /// `head` is the answer (it is no redirect, has no `Location` or an empty one, or the policy
  /// is ``never``):
  ///
  /// - the target is `Location` resolved against the URL that answered; a target that is
  ///   not `http` or `https` throws `HTTPError.transport(URLError(.unsupportedURL))`, and
  ///   `Location` fields that differ throw `HTTPError.transport(URLError(.badServerResponse))`;
  /// - `hops` counts this redirect among those followed for the request, from 1; past
  ///   the policy's maximum it throws `HTTPError.transport(URLError(.httpTooManyRedirects))`;
  /// - 303 (and 301 or 302 after a `POST`) turns the request into a `GET` without a body or
  ///   the fields that describe one (``bodyFields``);
  ///   307 and 308 keep the method and send the body again, and throw
  ///   `HTTPError.transport(URLError(.requestBodyStreamExhausted))` when it is a one-time
  ///   stream that has been sent (``TransportRequestBody/isReplayable``);
  /// - a target on another origin (scheme, host or port) gets no credential header, by the
  ///   same rule as every other place Courier moves a request (`credentialNames` adds to
  ///   the names Courier recognises), and no `Host` field the caller set.
  ///
  /// ``following(_:options:credentialNames:cookies:ownCookie:clock:sendOnce:)`` is the whole loop around it.
  func request(
    after head: HTTPResponse, to request: TransportRequest, hops: Int,
    credentialNames: Set<String> = []
  ) throws(HTTPError) -> TransportRequest? {
    guard follows(head), case .follow(let maximum) = self else { return nil }
    let locations = Self.locations(of: head)
    guard locations.count == 1, let location = locations.first else {
      // Which one the server meant is unknown (a field injected beside its own?): none.
      throw .transport(
        .badServerResponse,
        reason: "a \(head.status) redirect has \(locations.count) Location fields that differ; "
          + "none was followed", url: head.url ?? request.head.url)
    }
    let origin = head.url ?? request.head.url
    let target = try Self.target(location, from: origin)
    guard hops <= maximum else { throw .transport(URLError(.httpTooManyRedirects)) }
    var next = request
    next.head.url = target
    let method = request.head.httpMethod?.uppercased() ?? "GET"
    if Self.becomesGet(status: head.status, method: method) {
      next.head.httpMethod = "GET"
      next.body = nil
      for name in Self.bodyFields {
        next.head.setValue(nil, forHTTPHeaderField: name)
      }
    } else if let body = next.body, !body.isReplayable {
      throw TransportRequestBody.notReplayable(
        "a \(head.status) redirect to \(Redaction.url(target, extra: credentialNames))")
    }
    next.head = Credentials(names: credentialNames).keepingHome(
      next.head, from: request.head.url, to: target)
    if !URLOrigin.same(request.head.url, target) {
      // A Host the caller set names its own server; the transport names the next one from
      // the target, as libcurl does when it follows a redirect itself.
      next.head.setValue(nil, forHTTPHeaderField: "Host")
    }
    return next
  }

  /// Sends `request` with `sendOnce` within `options`, and after each redirect the request
  /// that ``request(after:to:hops:credentialNames:)`` makes of it, until a response is the
  /// answer: the client's one redirect loop. With `options.timings`, each hop is measured
  /// (``HopTimings``), with how many redirects came before it. A redirect's own body is read
  /// and dropped (so that its connection can carry the next request) while it ends within
  /// ``drainedBodyLimit`` bytes and ``drainGrace`` on `clock`; past either, it is cancelled
  /// (over HTTP/1.1 its connection is closed): the next hop never waits long on a redirect's
  /// slow body.
  ///
  /// With a cookie jar, every response's `Set-Cookie` is stored, and each next hop carries
  /// the jar's cookies for its URL in place of the `Cookie` field the request before had
  /// (the first request carries them already), after `ownCookie` — the request's own
  /// `Cookie` field, before the jar added to it — as long as every hop has stayed within the
  /// origin (a credential, it goes nowhere else).
  func following(
    _ request: TransportRequest, options: TransportOptions = TransportOptions(),
    credentialNames: Set<String> = [], cookies: CookieJar? = nil, ownCookie: String? = nil,
    clock: any TransportClock = ContinuousClock(),
    sendOnce: (TransportRequest, TransportOptions) async throws(HTTPError) -> TransportResponse
  ) async throws(HTTPError) -> TransportResponse {
    let response = try await Self.send(request, options, redirects: 0, with: sendOnce)
    Self.store(cookies, from: response, to: request)
    return try await following(
      from: response, to: request, options: options, credentialNames: credentialNames,
      cookies: cookies, ownCookie: ownCookie, clock: clock, sendOnce: sendOnce)
  }

  /// The rest of ``following(_:options:credentialNames:cookies:ownCookie:clock:sendOnce:)`` once `response`
  /// has answered the first hop, `request` (and its cookies are stored): `response` when it
  /// is the answer, else the answer after the redirects. The client's pipeline sends the
  /// first hop itself and comes here only when ``follows(_:)`` a response, which saves two
  /// async frames per request that is not redirected.
  func following(
    from response: TransportResponse, to request: TransportRequest,
    options: TransportOptions = TransportOptions(), credentialNames: Set<String> = [],
    cookies: CookieJar? = nil, ownCookie: String? = nil,
    clock: any TransportClock = ContinuousClock(),
    sendOnce: (TransportRequest, TransportOptions) async throws(HTTPError) -> TransportResponse
  ) async throws(HTTPError) -> TransportResponse {
    var request = request
    var response = response
    var ownCookie = ownCookie
    var hops = 0
    while true {
      hops += 1
      guard
        var next = try self.request(
          after: response.head, to: request, hops: hops, credentialNames: credentialNames)
      else {
        response.head.redirected = hops > 1
        if hops > 1 {
          // What the last hop sent is the answer's to keep secret (the pipeline adds the
          // first request's rules to these).
          response.head.credentials = Credentials(names: credentialNames, request: request.head)
        }
        return response
      }
      await Self.drain(response.body, on: clock)
      if let cookies {
        // The credential rule took the field off for another origin: the own cookie with it.
        if next.head.value(forHTTPHeaderField: "Cookie") == nil { ownCookie = nil }
        next.head.setValue(ownCookie, forHTTPHeaderField: "Cookie")
        cookies.addCookies(to: &next.head)
      }
      request = next
      response = try await Self.send(request, options, redirects: hops, with: sendOnce)
      Self.store(cookies, from: response, to: request)
    }
  }

  /// Sends one hop, `request`, after `redirects` redirects, with `sendOnce`: measured
  /// (``HopTimings``) when `options` ask for timings. (The pipeline sends a request's first
  /// hop itself, inline, by the same steps.)
  static func send(
    _ request: TransportRequest, _ options: TransportOptions, redirects: Int,
    with sendOnce: (TransportRequest, TransportOptions) async throws(HTTPError) ->
      TransportResponse
  ) async throws(HTTPError) -> TransportResponse {
    let (hop, timings) = HopTimings.start(options, redirects: redirects)
    let response: TransportResponse
    do throws(HTTPError) {
      response = try await sendOnce(request, hop)
    } catch {
      timings?.ended()
      throw error
    }
    timings?.answered(response, collected: options.collects(response.head))
    return response
  }

  /// Stores the `Set-Cookie` fields of `response` to `request` in `cookies`, if any.
  static func store(
    _ cookies: CookieJar?, from response: TransportResponse, to request: TransportRequest
  ) {
    if let cookies, let url = response.head.url ?? request.head.url {
      cookies.store(from: response.head.headers, for: url)
    }
  }

  /// The most bytes of a redirect's body that are read (and dropped) rather than cancelled.
  static let drainedBodyLimit = 64 * 1024

  /// The longest a redirect's body may take to end before it is cancelled: a body sent with
  /// its head ends well within it, also on a slow mobile link (and its connection carries the
  /// next hop); one that trickles or stalls does not hold the redirect, whatever the idle
  /// timeout (over HTTP/1.1 its connection is closed, and the next hop goes on another).
  /// Over URLSession a body is seen to end only after its head has been handed over, so
  /// the grace runs for every redirect there: 1 s rather than a blink, so that a short body
  /// on a slow link is read, not cut.
  static let drainGrace = Duration.seconds(1)

  /// Reads `body` to its end and drops it, unless it runs past ``drainedBodyLimit`` bytes,
  /// has not ended within ``drainGrace`` on `clock`, or fails: then it is cancelled.
  static func drain(_ body: TransportResponseBody, on clock: any TransportClock) async {
    // A body that has come whole is read at once: no timer.
    let grace =
      body.hasEnded
      ? nil
      : Task {
        do {
          try await clock.wait(for: drainGrace)
        } catch {
          return
        }
        body.cancel()
      }
    defer { grace?.cancel() }
    var count = 0
    do {
      for try await chunk in body {
        count += chunk.count
        if count > drainedBodyLimit { return body.cancel() }
      }
    } catch {
      body.cancel()
    }
  }

  /// `location` without its scheme when that is `base`'s and no authority follows it
  /// (`http:landing` from an `http` URL is `landing`); otherwise `location` as it is. A
  /// backslash where the authority's slashes would be (`http:\\evil.test`, which browsers
  /// read as `http://evil.test`) is not taken for a relative reference: the location stays
  /// whole, names no host, and is refused.
  private static func relative(_ location: String, to base: URL?) -> String {
    guard let scheme = base?.scheme, let colon = location.firstIndex(of: ":"),
      location[..<colon].lowercased() == scheme.lowercased()
    else { return location }
    let rest = location[location.index(after: colon)...]
    let authorityLike = rest.hasPrefix("//") || rest.hasPrefix("\\") || rest.hasPrefix("/\\")
    return authorityLike ? location : String(rest)
  }

  /// The fields that describe a request's body, which a request turned into a `GET` drops
  /// with it: its framing, and Fetch's request-body-header names (a `GET` that says
  /// `Content-Encoding: gzip` has no body to decode).
  static let bodyFields = [
    "Content-Type", "Content-Length", "Transfer-Encoding", "Content-Encoding", "Content-Language",
    "Content-Location",
  ]

  /// The statuses that redirect to `Location`.
  static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

  /// Whether a redirect with `status` of a `method` request is followed with a `GET`: 303
  /// for every method but `HEAD`, and 301 or 302 for a `POST` (as every client does).
  static func becomesGet(status: Int, method: String) -> Bool {
    switch status {
    case 303: method != "HEAD" && method != "GET"
    case 301, 302: method == "POST"
    default: false
    }
  }

  /// Where a redirect's `location` leads, resolved against `base`, when it is an `http` or
  /// `https` URL with a host (or, from a Unix domain socket's URL, one on the same socket);
  /// any other target (`ftp:`, `file:`, `data:`, a custom scheme)
  /// is refused with `HTTPError.transport(URLError(.unsupportedURL))` before anything is
  /// sent to it. Its scheme is written in lower case (`HTTP://h` leads to `http://h`).
  ///
  /// A `location` that names the base's own scheme without an authority (`http:landing`,
  /// `http:/landing`) is the relative reference after the scheme, as RFC 3986 §5.2.2's
  /// non-strict parser and the WHATWG URL standard (what browsers follow) read it; another
  /// scheme so written (`https:landing` from an `http` page) names no host, and is refused.
  static func target(_ location: String, from base: URL?) throws(HTTPError) -> URL {
    let target = URL(string: relative(location, to: base), relativeTo: base)?.absoluteURL
    // A Unix domain socket's URL leads on only to the same socket (a relative Location).
    let sameSocket = UnixSocketURL.isUnix(target?.scheme) && URLOrigin.same(target, base)
    guard let target, let scheme = target.scheme?.lowercased(),
      scheme == "http" || scheme == "https" || sameSocket, target.host?.isEmpty == false
    else {
      var userInfo: [String: Any] = [
        NSLocalizedDescriptionKey: "a redirect to a URL that is not http or https was refused"
      ]
      userInfo[NSURLErrorFailingURLErrorKey] = target
      throw .transport(URLError(.unsupportedURL, userInfo: userInfo))
    }
    guard let raw = target.scheme, raw != scheme else { return target }
    return URL(string: URLBuilder.lowercasingScheme(target.absoluteString, scheme)) ?? target
  }
}
