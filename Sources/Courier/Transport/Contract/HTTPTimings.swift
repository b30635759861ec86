import Foundation

/// How long one exchange with the server took, and over what: what ``HTTPClient`` publishes
/// as ``HTTPEvent/measured(_:_:)`` for each exchange (each redirect followed is one), once
/// its body has been read or let go, or it failed.
///
/// Phases nobody could see are `nil`. ``CurlTransport`` gives libcurl's figures, and
/// ``URLSessionTransport`` URLSession's task metrics where the platform collects them (Apple
/// platforms: `URLSessionTaskMetrics`, with DNS, connect, TLS and the negotiated protocol).
/// Otherwise — URLSession on Linux, which collects none, a transport of your own, the stub —
/// the client measures the exchange on its own clock: the total, and the first byte when the
/// body is read as it comes (a buffered body arrives with its head).
public struct HTTPTimings: Sendable, Equatable {
  /// Where the figures come from.
  public enum Source: Sendable, Equatable {
    /// The platform's own measurements (`URLSessionTaskMetrics` on Apple platforms).
    case platform
    /// The client's clock around the transport.
    case courier
    /// libcurl's own measurements (``CurlTransport``, Linux).
    case libcurl
  }

  /// Where the figures come from.
  public var source: Source
  /// From the start of the exchange to its end (the whole body, or the failure).
  public var total: Duration
  /// Looking up the host's address; `nil` when unknown or not needed (a reused connection).
  public var domainLookup: Duration?
  /// Opening the connection, TLS included; `nil` when unknown or reused.
  public var connect: Duration?
  /// The TLS handshake; `nil` when unknown, reused or not TLS.
  public var secureConnection: Duration?
  /// From the start of the exchange to the first byte of the response.
  public var firstByte: Duration?
  /// The protocol the exchange used as ALPN names it (`"http/1.1"`, `"h2"`, `"h3"`), when
  /// known.
  public var networkProtocol: String?
  /// Whether the exchange went over a connection already open, when known.
  public var reusedConnection: Bool?
  /// Redirects followed so far, counted from the request's first exchange.
  public var redirects: Int

  /// Timings; only `source` and `total` are required.
  public init(
    source: Source, total: Duration, domainLookup: Duration? = nil, connect: Duration? = nil,
    secureConnection: Duration? = nil, firstByte: Duration? = nil,
    networkProtocol: String? = nil, reusedConnection: Bool? = nil, redirects: Int = 0
  ) {
    self.source = source
    self.total = total
    self.domainLookup = domainLookup
    self.connect = connect
    self.secureConnection = secureConnection
    self.firstByte = firstByte
    self.networkProtocol = networkProtocol
    self.reusedConnection = reusedConnection
    self.redirects = redirects
  }
}
