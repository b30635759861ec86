import Foundation

/// The proxy a transport sends its requests through, as a value: an HTTP proxy (which
/// tunnels `https` with `CONNECT`) or a SOCKS5 proxy (which resolves host names itself), with
/// credentials if it asks for them, and the hosts reached directly instead.
///
/// ```swift
/// var configuration = CurlTransport.Configuration()
/// configuration.proxy = .http(host: "proxy.internal", port: 3128,
///   username: "svc", password: secret, excluding: ["localhost", ".internal"])
/// ```
///
/// Without one, `CurlTransport` and URLSession on Linux take the proxy from the environment
/// (`http_proxy`, `https_proxy`, `no_proxy`); URLSession on Apple platforms takes the
/// system's proxy settings. The password is a credential: no description, dump or error
/// of Courier's shows it.
///
/// An HTTP proxy's refusal of a plain `http` request is its answer, the response (a `407`
/// fails with ``HTTPError/unacceptableStatus(_:)``). Its refusal of a `CONNECT` tunnel, over
/// ``CurlTransport``, fails with ``HTTPError/transport(_:)`` naming its status: a `407` as
/// `URLError.userAuthenticationRequired` (the credentials are missing or wrong), another
/// `4xx` as `resourceUnavailable`, neither of which ``RetryPolicy`` retries, and a `5xx` as
/// `cannotConnectToHost`, which it does; an answer to `CONNECT` whose head is over libcurl's
/// limits (300 KiB) with `badServerResponse`, not retried either. A SOCKS5 proxy's refusal
/// fails the same way: its login refused as `userAuthenticationRequired`, a connection its
/// rules forbid as `resourceUnavailable`, a host it cannot reach as `cannotConnectToHost`.
public struct ProxyConfiguration: Sendable, CustomStringConvertible, CustomReflectable {
  /// What kind of proxy it is.
  public enum Kind: Sendable, Hashable {
    /// An HTTP proxy: plain `http` requests go to it with their absolute URL, and `https`
    /// ones (and WebSockets) through a `CONNECT` tunnel.
    case http
    /// A SOCKS5 proxy (RFC 1928), which is given the host name and resolves it itself.
    case socks5
  }

  /// What kind of proxy it is.
  public var kind: Kind
  /// The proxy's host name or address (an IPv6 address with or without brackets). One with
  /// a scheme, user info or a port written into it (`http://svc:pw@proxy:3128`) fails every
  /// request with ``HTTPError/invalidRequest(reason:)``, nothing sent: give them apart.
  public var host: String
  /// The proxy's port.
  public var port: Int
  /// The user name the proxy asks for, if any (Basic for HTTP, RFC 1929 for SOCKS5).
  public var username: String?
  /// The password the proxy asks for, if any: a credential, never shown. A SOCKS5 proxy's
  /// user name and password are at most 255 bytes each (RFC 1929); a longer one fails every
  /// request with ``HTTPError/invalidRequest(reason:)``, nothing sent.
  var password: String?
  /// Hosts reached directly, not through the proxy: a name matches itself and its
  /// subdomains (`example.com` matches `api.example.com`), `.example.com` and
  /// `*.example.com` match its subdomains (with ``CurlTransport``, as curl does, the name
  /// itself too), `*` matches every host. An IP address matches itself (an IPv6 one with or
  /// without brackets). An entry matches its host on every port: one with a port written into
  /// it (`localhost:8080`) fails every request with ``HTTPError/invalidRequest(reason:)``,
  /// nothing sent, since neither transport can exclude one port alone.
  public var excludedHosts: [String]

  /// An HTTP proxy at `host` and `port`.
  public static func http(
    host: String, port: Int, username: String? = nil, password: String? = nil,
    excluding excludedHosts: [String] = []
  ) -> ProxyConfiguration {
    ProxyConfiguration(
      kind: .http, host: host, port: port, username: username, password: password,
      excludedHosts: excludedHosts)
  }

  /// A SOCKS5 proxy at `host` and `port`, which resolves host names itself.
  public static func socks5(
    host: String, port: Int, username: String? = nil, password: String? = nil,
    excluding excludedHosts: [String] = []
  ) -> ProxyConfiguration {
    ProxyConfiguration(
      kind: .socks5, host: host, port: port, username: username, password: password,
      excludedHosts: excludedHosts)
  }

  /// The proxy, with its password redacted (and any user info written into ``host``).
  public var description: String {
    let user = username.map { " as \($0)" } ?? ""
    let secret = password == nil ? "" : " (password <redacted>)"
    let excluded = excludedHosts.isEmpty ? "" : ", not for \(excludedHosts.joined(separator: ", "))"
    let shown =
      host.contains("@")
      ? "<redacted>@" + host.split(separator: "@", omittingEmptySubsequences: false).last! : host
    return "ProxyConfiguration(\(kind) \(shown):\(port)\(user)\(secret)\(excluded))"
  }

  /// Why no request can go through this proxy, if none can: a ``host`` that is no host name
  /// or address — a URL, user info, a port written into it — or a port outside 1...65535.
  /// Such a host would otherwise be taken for a name to resolve, and the request fail with a
  /// "cannot find host" that seems to be about its own URL. The reason never repeats the
  /// host, which may hold a password.
  var refusal: HTTPError? {
    // One pair of brackets around an IPv6 address, and no other bracket anywhere.
    let bracketed = host.hasPrefix("[") && host.hasSuffix("]")
    let bare = bracketed ? String(host.dropFirst().dropLast()) : host
    let colons = bare.filter { $0 == ":" }.count
    let malformed =
      bare.isEmpty || colons == 1 || (bracketed && colons == 0)
      || bare.unicodeScalars.contains { scalar in
        "/@?#\\[]".unicodeScalars.contains(scalar) || scalar.properties.isWhitespace
          || scalar.value < 0x20 || scalar.value == 0x7F
      }
    if malformed {
      return .invalidRequest(
        reason: "the proxy's host is not a host name or address (a URL, user info or a port "
          + "written into it?); give them apart: ProxyConfiguration.\(kind)(host:port:username:password:)"
      )
    }
    guard (1...65535).contains(port) else {
      return .invalidRequest(reason: "the proxy's port \(port) is not in 1...65535")
    }
    if let entry = exclusions.first(where: Self.hasPort) {
      return .invalidRequest(
        reason: "the proxy's excluded host \"\(entry)\" has a port: an exclusion matches its "
          + "host on every port, so give the host alone")
    }
    if kind == .socks5, [username, password].contains(where: { ($0?.utf8.count ?? 0) > 255 }) {
      return .invalidRequest(
        reason: "a SOCKS5 proxy's user name and password are at most 255 bytes each (RFC 1929)")
    }
    return nil
  }

  /// Whether an excluded host has a port written into it: `host:port`, or `[address]:port`
  /// (an IPv6 address without brackets has more than one colon, and no port).
  private static func hasPort(_ entry: String) -> Bool {
    entry.hasPrefix("[") || entry.filter { $0 == ":" }.count == 1
  }

  /// ``excludedHosts`` without spaces or line breaks around an entry, without entries left
  /// empty, and an IPv6 address without its brackets (`[::1]` as `::1`, the form libcurl
  /// compares; it took the brackets for part of a name, and sent the request through the
  /// proxy): what both transports' exclusion lists are made from.
  var exclusions: [String] {
    excludedHosts.compactMap { entry in
      let host = entry.trimmingCharacters(in: .whitespacesAndNewlines)
      let bare =
        host.hasPrefix("[") && host.hasSuffix("]") ? host.dropFirst().dropLast() : host[...]
      return bare.isEmpty ? nil : String(bare)
    }
  }

  /// What the proxy's login puts on the wire, for the credential rule of a client whose
  /// transport goes through it (``HoldsCredentials``): the password, `user:password` and
  /// their Basic token; nothing without a password.
  var secrets: [String] {
    Redaction.loginSecrets(user: username ?? "", password: password)
  }

  /// The host as a URL's authority takes it: an IPv6 address in brackets, once.
  var hostForURL: String {
    host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
  }

  /// No children: a dump of the proxy shows its description, never the password.
  public var customMirror: Mirror {
    Mirror(self, children: [], displayStyle: .struct)
  }
}
