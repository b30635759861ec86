import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The cookies a client keeps and sends back, by the rules browsers share (RFC 6265bis):
/// off by default, installed with ``HTTPClient/Configuration/cookies``, in memory or kept in
/// a file.
///
/// ```swift
/// var configuration = HTTPClient.Configuration()
/// configuration.cookies = CookieJar()                                   // this process only
/// configuration.cookies = try CookieJar(persistingTo: appSupport.appendingPathComponent("cookies.json"))
/// ```
///
/// With a jar, every request — each hop of a redirect too — carries the cookies that match
/// its URL (host-only or domain cookies, path, `Secure` only over `https`, not expired,
/// longest path first), and every response's `Set-Cookie` fields are stored: a `Domain`
/// that is a public suffix (by the system's libpsl where it loads, else any name of one
/// label) or that the host is not under is refused, a `Secure` cookie or a `__Secure-` or
/// `__Host-` name is taken only over `https`, an `http` response cannot replace a secure
/// cookie, `Max-Age` wins over `Expires`, and no cookie is kept longer than 400 days
/// (``maximumAge``). Cookies are credentials: redacted wherever
/// Courier prints a request, never sent beyond the domain that set them. URLSession's own
/// cookie handling is switched off for requests that go with a jar, so every transport
/// behaves the same.
///
/// A jar persisting to a file writes its persistent cookies (those with an expiry) there
/// after each change, readable by the owner only; session cookies stay in memory.
public final class CookieJar: Sendable {
  private struct State: Sendable {
    var cookies: [Cookie] = []
  }

  private let state = Locked(State())
  /// Held while the file is written: one save at a time, each reading the cookies once it
  /// holds it, so the last save to reach the disk holds the last change.
  private let saving = Locked(())
  private let file: URL?
  private let now: @Sendable () -> Date
  /// The most cookies kept for one domain; past it the oldest goes first.
  public static let maximumPerDomain = 50
  /// The most cookies kept in all; past it the oldest goes first.
  public static let maximumCount = 3000
  /// The longest a cookie is kept, in seconds: 400 days (RFC 6265bis's cookie-age-limit, as
  /// browsers keep it). A later `Expires`, or a longer `Max-Age`, expires then.
  public static let maximumAge: TimeInterval = 400 * 24 * 60 * 60

  /// A jar in memory.
  public convenience init() {
    self.init(today: { Date() })
  }

  /// A jar in memory whose expiry is judged by `today` (the package's tests fix the date).
  package init(today: @escaping @Sendable () -> Date) {
    file = nil
    now = today
  }

  /// A jar whose persistent cookies are kept in `file` (a JSON array, owner-only): read and
  /// written now (created if missing), then written after every change.
  ///
  /// - Throws: ``HTTPError/invalidRequest(reason:)`` when the file exists and is not a jar,
  ///   or cannot be written (its directory is missing or read-only): a jar that could not
  ///   keep its cookies would lose them silently at the next launch.
  public convenience init(persistingTo file: URL) throws(HTTPError) {
    try self.init(persistingTo: file, today: { Date() })
  }

  /// A persisting jar whose expiry is judged by `today` (the package's tests fix the date).
  package init(persistingTo file: URL, today: @escaping @Sendable () -> Date) throws(HTTPError) {
    self.file = file
    now = today
    if FileManager.default.fileExists(atPath: file.path) {
      guard let data = try? Data(contentsOf: file),
        let cookies = try? JSONDecoder().decode([Cookie].self, from: data)
      else { throw .invalidRequest(reason: "\(file.path) is not a cookie jar's file") }
      let moment = now()
      state.withLock { $0.cookies = cookies.filter { ($0.expires ?? .distantFuture) > moment } }
    }
    guard save() else {
      throw .invalidRequest(
        reason: "the cookie jar's file \(file.path) cannot be written (is its directory "
          + "missing or read-only?)")
    }
  }

  // MARK: - Reading

  /// Every cookie kept, expired ones left out.
  public var cookies: [Cookie] {
    let moment = now()
    return state.withLock { $0.cookies }.filter { ($0.expires ?? .distantFuture) > moment }
  }

  /// The cookies a request to `url` carries, in the order they are sent.
  public func cookies(for url: URL) -> [Cookie] {
    guard let host = CookieRules.host(of: url) else { return [] }
    let path = CookieRules.requestPath(of: url)
    let secure = CookieRules.isSecure(url)
    let moment = now()
    let matching = state.withLock { state in
      state.cookies.filter { $0.matches(host: host, path: path, secure: secure, at: moment) }
    }
    // Longer paths first, then the older (§5.8.3); the sort is stable.
    return matching.enumerated().sorted { first, second in
      if first.element.path.count != second.element.path.count {
        return first.element.path.count > second.element.path.count
      }
      if first.element.created != second.element.created {
        return first.element.created < second.element.created
      }
      return first.offset < second.offset
    }.map(\.element)
  }

  /// The `Cookie` field for a request to `url`, or `nil` when no cookie matches.
  public func header(for url: URL) -> String? {
    let cookies = cookies(for: url)
    guard !cookies.isEmpty else { return nil }
    return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
  }

  /// Adds the jar's cookies for `head`'s URL to its `Cookie` field (after any cookie it
  /// carries already), and keeps URLSession's own cookie storage out of the request
  /// (`httpShouldHandleCookies` off): the jar is the request's one store, sending and
  /// keeping alike.
  public func addCookies(to head: inout URLRequest) {
    head.httpShouldHandleCookies = false
    guard let url = head.url, let cookies = header(for: url) else { return }
    let own = head.value(forHTTPHeaderField: "Cookie").flatMap { $0.isEmpty ? nil : $0 }
    head.setValue(own.map { "\($0); \(cookies)" } ?? cookies, forHTTPHeaderField: "Cookie")
  }

  // MARK: - Storing

  /// Stores the cookies of a response from `url`: each `Set-Cookie` field of `headers`.
  public func store(from headers: HTTPHeaders, for url: URL) {
    store(headers.values(for: "Set-Cookie"), from: url)
  }

  /// Stores `Set-Cookie` field values received from `url`; those the rules refuse are
  /// ignored.
  public func store(_ setCookies: [String], from url: URL) {
    guard !setCookies.isEmpty, let host = CookieRules.host(of: url) else { return }
    let moment = now()
    let accepted = setCookies.compactMap { SetCookie($0) }
    guard !accepted.isEmpty else { return }
    let changed = state.withLock { state -> Bool in
      var changed = false
      for setCookie in accepted {
        guard let cookie = make(setCookie, url: url, host: host, at: moment) else { continue }
        changed = insert(cookie, from: url, into: &state, at: moment) || changed
      }
      return changed
    }
    if changed { save() }
  }

  /// Removes every cookie.
  public func removeAll() {
    state.withLock { $0.cookies = [] }
    save()
  }

  /// Removes the cookies `shouldRemove` picks.
  public func remove(where shouldRemove: (Cookie) -> Bool) {
    state.withLock { $0.cookies.removeAll(where: shouldRemove) }
    save()
  }

  /// The cookie a field makes (§5.7 steps 1–20), or `nil` when the rules refuse it.
  private func make(_ field: SetCookie, url: URL, host: String, at moment: Date) -> Cookie? {
    let secureOrigin = CookieRules.isSecure(url)
    var expires: Date?
    if let maxAge = field.maxAge {
      expires = maxAge <= 0 ? .distantPast : moment.addingTimeInterval(TimeInterval(maxAge))
    } else {
      expires = field.expires
    }
    // The cookie-age-limit (§5.6.1, §5.6.2): a server cannot keep a cookie for years.
    expires = expires.map { min($0, moment.addingTimeInterval(Self.maximumAge)) }
    var domain = field.domain ?? ""
    if !domain.isEmpty, PublicSuffix.contains(domain) {
      // A public suffix is only the host's own name, taken as host-only.
      guard domain == host else { return nil }
      domain = ""
    }
    let hostOnly = domain.isEmpty
    if !hostOnly {
      guard CookieRules.domainMatches(host, domain) else { return nil }
    }
    if field.secure && !secureOrigin { return nil }
    let lowercasedName = field.name.lowercased()
    if lowercasedName.hasPrefix("__secure-"), !(field.secure && secureOrigin) { return nil }
    if lowercasedName.hasPrefix("__host-"),
      !(field.secure && secureOrigin && hostOnly && field.path == "/")
    {
      return nil
    }
    return Cookie(
      name: field.name, value: field.value, domain: hostOnly ? host : domain,
      path: field.path ?? CookieRules.defaultPath(of: url), isHostOnly: hostOnly,
      isSecure: field.secure, isHTTPOnly: field.httpOnly, sameSite: field.sameSite,
      expires: expires, created: moment)
  }

  /// Puts `cookie` in place of the same one, or removes it when it has expired; returns
  /// whether the jar changed.
  private func insert(
    _ cookie: Cookie, from url: URL, into state: inout State, at moment: Date
  ) -> Bool {
    var cookie = cookie
    // An insecure response does not touch a secure cookie of the same name that it could
    // see (§5.7 step 16).
    if !CookieRules.isSecure(url),
      state.cookies.contains(where: { old in
        old.isSecure && old.name == cookie.name
          && (CookieRules.domainMatches(old.domain, cookie.domain)
            || CookieRules.domainMatches(cookie.domain, old.domain))
          && CookieRules.pathMatches(cookie.path, old.path)
      })
    {
      return false
    }
    var changed = false
    if let index = state.cookies.firstIndex(where: { $0.isSameCookie(as: cookie) }) {
      cookie.created = state.cookies[index].created
      state.cookies.remove(at: index)
      changed = true
    }
    if let expires = cookie.expires, expires <= moment { return changed }
    state.cookies.append(cookie)
    evict(from: &state, domain: cookie.domain, at: moment)
    return true
  }

  /// Drops expired cookies, then the oldest past the limits.
  private func evict(from state: inout State, domain: String, at moment: Date) {
    state.cookies.removeAll { ($0.expires ?? .distantFuture) <= moment }
    let inDomain = state.cookies.filter { $0.domain == domain }
    if inDomain.count > Self.maximumPerDomain,
      let oldest = inDomain.min(by: { $0.created < $1.created })
    {
      state.cookies.removeAll { $0.isSameCookie(as: oldest) }
    }
    if state.cookies.count > Self.maximumCount,
      let oldest = state.cookies.indices.min(by: {
        state.cookies[$0].created < state.cookies[$1].created
      })
    {
      state.cookies.remove(at: oldest)
    }
  }

  /// Writes the persistent cookies to the jar's file, owner-only, in one step; whether it could.
  @discardableResult
  private func save() -> Bool {
    guard let file else { return true }
    // Read and written under `saving`: a save that read the cookies before another thread's
    // change must not reach the disk after that thread's save did (its file would lack the
    // change until the next one).
    return saving.withLock { _ in
      let persistent = state.withLock { $0.cookies.filter(\.isPersistent) }
      guard let data = try? JSONEncoder().encode(persistent) else { return false }
      // Created owner-only before a byte is written, then renamed over the old file.
      // (`FileManager.createFile(attributes:)` wrote the cookies to a file readable by all and
      // narrowed it only after renaming it into place.)
      return FileBytes.writeAtomically([data], to: file.path)
    }
  }
}

extension CookieJar: CustomStringConvertible, CustomReflectable {
  /// How many cookies the jar holds, and where it keeps them: `CookieJar(2 cookies)`.
  public var description: String {
    let count = cookies.count
    let kept = file.map { ", kept in \($0.path)" } ?? ""
    return "CookieJar(\(count) cookie\(count == 1 ? "" : "s")\(kept))"
  }

  /// The cookies (each without its value; see ``Cookie``'s mirror) and the file.
  public var customMirror: Mirror {
    Mirror(self, children: ["cookies": cookies, "file": file as Any], displayStyle: .class)
  }
}
