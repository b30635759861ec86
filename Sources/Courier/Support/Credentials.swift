import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What counts as a credential for one request, decided in one place and applied
/// everywhere the request or its answer goes: descriptions, logs, curl commands, events,
/// errors, and redirects to another origin.
///
/// A header or query item is a credential when Courier's rules say so (`Authorization`,
/// `Cookie`, names containing `auth`, `token`, `key`, `secret`…; see ``Redaction``), when
/// the client lists its name (``HTTPClient/Configuration/redactedNames``), or when a
/// middleware marked it (``OutgoingRequest/markCredential(_:)``, as
/// ``APIKeyAuthentication`` does). The values such fields carry in the request as sent, and
/// the credentials the transport adds out of the request's sight (its proxy's login,
/// ``HoldsCredentials``), are scrubbed from any text Courier prints about it, wherever they
/// appear: a server that echoes an API key, or a proxy's `Proxy-Authorization` forwarded to
/// it, in an error body does not put it in an error description.
struct Credentials: Sendable {
  /// Lowercased names that are credentials besides those Courier recognises.
  var names: Set<String>
  /// The request as sent, after middleware: the values to scrub are read from it when text
  /// is printed (never on the fast path).
  var request: URLRequest?
  /// Credential values the request does not show: the transport's own
  /// (``HoldsCredentials/heldCredentials``).
  var held: [String]
  /// The other requests of the request's redirect chain, whose credential values are
  /// secrets too: a server may echo the first request's into the URL it redirects to (an
  /// origin that request's credential headers were kept from), and the last hop carries
  /// what the first never held (the cookie jar's for another origin).
  var chain: [URLRequest] = []
  /// The request's body, when it is in memory and at most ``bodyLimit`` bytes: the values of
  /// its credential fields (``Redaction/fieldSecrets(in:extra:)``) are secrets too, wherever
  /// a server echoes them (a validation error quoting the password under another name).
  var body: Data?

  /// The largest body whose credential fields are looked for: a form or JSON that holds a
  /// login is small, and a large upload is not kept alive with its answer for this.
  static let bodyLimit = 64 * 1024

  /// `body`'s bytes when it is in memory and at most ``bodyLimit`` of them (asked before
  /// they are gathered: a large body is not copied for this).
  static func readable(_ body: TransportRequestBody?) -> Data? {
    guard let body, let length = body.length, length <= Int64(bodyLimit) else { return nil }
    return body.data
  }

  init(
    names: Set<String> = [], request: URLRequest? = nil, held: [String] = [], body: Data? = nil
  ) {
    self.names = names
    self.request = request
    self.held = held
    self.body = body.flatMap { $0.count <= Self.bodyLimit ? $0 : nil }
  }

  /// Whether a header or query item named `name` carries a credential.
  func isCredential(_ name: String) -> Bool {
    Redaction.isSensitive(name: name, extra: names)
  }

  /// The credential values of the request as sent (its head's and its body's fields'), of
  /// the rest of its chain, and the held ones, in every form a server may echo them in
  /// (``Redaction/forms(of:)``), longest first.
  var secrets: [String] {
    let own = request.map { Redaction.secrets(in: $0, extra: names) } ?? []
    guard !held.isEmpty || !chain.isEmpty || body != nil else { return own }
    let others = chain.flatMap { Redaction.secrets(in: $0, extra: names) }
    let fields = body.map { Redaction.fieldSecrets(in: $0, extra: names) } ?? []
    return (own + others + Redaction.forms(of: held + fields)).sorted { $0.count > $1.count }
  }

  /// `text` with every credential value replaced by the placeholder.
  func scrub(_ text: String) -> String {
    let secrets = self.secrets
    return secrets.isEmpty ? text : Redaction.scrub(text, secrets: secrets)
  }

  /// A URL as text: user-info and credential query values redacted, and any credential
  /// value elsewhere in it (a path segment) scrubbed.
  func describe(_ url: URL?) -> String {
    scrub(Redaction.url(url, extra: names))
  }

  /// A header value as text: the placeholder for a credential header, otherwise the value
  /// with credential values scrubbed.
  func describe(headerValue value: String, name: String) -> String {
    scrub(Redaction.headerValue(value, name: name, extra: names))
  }

  /// These rules and `other`'s together; `other`'s request where this one has none, and a
  /// part of its chain where it differs from this one's.
  func merging(_ other: Credentials) -> Credentials {
    var merged = Credentials(
      names: names.union(other.names), request: request ?? other.request,
      held: held.isEmpty ? other.held : held + other.held.filter { !held.contains($0) },
      body: body ?? other.body)
    merged.chain = chain + other.chain
    if let mine = request, let theirs = other.request, mine != theirs {
      merged.chain.append(theirs)
    }
    return merged
  }

  /// These rules for `head` as sent: the same request, or a hop of its redirect chain,
  /// which keeps this one's request in its ``chain``.
  func sending(_ head: URLRequest?) -> Credentials {
    var rules = Credentials(names: names, request: head, held: held, body: body)
    rules.chain = chain
    if let request, request != head { rules.chain.append(request) }
    return rules
  }

  /// `request` made fit to go to `target`: when `target` is another origin than `from`
  /// (scheme, host or port), every credential header is removed. The one rule for
  /// redirects and absolute URLs alike.
  func keepingHome(_ request: URLRequest, from origin: URL?, to target: URL?) -> URLRequest {
    guard !URLOrigin.same(origin, target) else { return request }
    var request = request
    for name in (request.allHTTPHeaderFields ?? [:]).keys where isCredential(name) {
      request.setValue(nil, forHTTPHeaderField: name)
    }
    return request
  }

  /// `error` made safe to print: a response it carries learns these rules (so its
  /// description redacts and scrubs them); a decoding failure's reason loses the credential
  /// values; a transport error's failing URL (and any URL in the errors under it) loses its
  /// user-info and credential values, and its texts (and those of the errors under it) lose
  /// those values and the environment's proxy credentials (``Redaction/proxyCredentials(in:)``).
  func applied(to error: HTTPError) -> HTTPError {
    switch error {
    case .unacceptableStatus(var response):
      response.credentials = response.credentials.merging(self)
      return .unacceptableStatus(response)
    case .decodingFailed(let reason, var response):
      response.credentials = response.credentials.merging(self)
      // The reason is text to show (a coding path may be a key the body echoed): scrubbed
      // itself, as a transport error's URL is, not only where the error is described.
      return .decodingFailed(reason: response.credentials.scrub(reason), response: response)
    case .transport(let urlError):
      // The URLError itself may be printed (its userInfo shows the URL and the texts), so
      // its texts, and those of the errors under it, lose the request's credential values
      // and the environment's proxy credentials (which libcurl quotes when it cannot use
      // them); its URL loses user-info, credential query (and fragment) values, and
      // credential values anywhere else in it.
      let secrets = self.secrets
      let names = self.names
      let userInfo = Redaction.scrub(
        userInfo: urlError.userInfo,
        secrets: (secrets + Redaction.libcurlProxyCredentials()).sorted { $0.count > $1.count }
      ) { url in
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
          return nil
        }
        components.user = nil
        components.password = nil
        Redaction.redactParameters(of: &components, extra: names)
        let text = secrets.reduce(components.string ?? "") {
          $0.replacingOccurrences(of: $1, with: "REDACTED")
        }
        return URL(string: text)
      }
      return .transport(URLError(urlError.code, userInfo: userInfo))
    default:
      return error
    }
  }
}

/// A transport that puts credentials of its own on what it sends, out of any request's
/// sight: its proxy's login. A client learns them from its transport when it is made
/// (``HTTPClient/heldCredentials``), and its credential rule scrubs them from any text as it
/// does the request's own: a proxy that forwards `Proxy-Authorization` to the origin lets
/// the origin echo it. A transport that wraps one of these does not pass them on.
protocol HoldsCredentials {
  /// The values to scrub (``Redaction/loginSecrets(user:password:)``).
  var heldCredentials: [String] { get }
}
