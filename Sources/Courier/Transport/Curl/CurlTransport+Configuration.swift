// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation

  extension CurlTransport {
    /// How a ``CurlTransport`` makes and keeps its connections: every setting has a default
    /// that suits most servers, so set only what your network asks for.
    ///
    /// ```swift
    /// var configuration = CurlTransport.Configuration()
    /// configuration.connectTimeout = .seconds(2)
    /// configuration.addressOverrides = [.init(host: "api.internal", port: 443, address: "10.0.0.7")]
    /// configuration.maximumConnectionLifetime = .seconds(300)
    /// let client = HTTPClient(baseURL: api, transport: CurlTransport(configuration: configuration))
    /// ```
    public struct Configuration: Sendable {
      /// Connections to one host at once; 32 by default (HTTP/2 carries many requests over
      /// one). More HTTP/1.1 requests than that wait in libcurl's queue for a connection, with
      /// their timeout and idle timeout running; to make requests wait their turn with no
      /// clock running, set the client's
      /// ``HTTPClient/Configuration/maximumConcurrentRequestsPerHost`` to at most this.
      public var maximumConnectionsPerHost = 32
      /// Which servers are trusted: certificate authorities of your own, whether the system's
      /// roots still are beside them, and pinned public keys (see ``ServerTrust``, which
      /// ``URLSessionTransport`` takes too); `nil` (the default) for the system's roots.
      public var trust: ServerTrust?
      /// The certificate and key presented when a server asks for one (mutual TLS); `nil`
      /// (the default) for none. A file that cannot be read fails the request with
      /// ``HTTPError/invalidRequest(reason:)`` before anything is sent; a key the passphrase
      /// does not unlock, or a certificate the server refuses, with ``HTTPError/transport(_:)``
      /// (`clientCertificateRejected`, or the server's refusal as the connection drops).
      public var clientIdentity: ClientIdentity?
      /// The lowest TLS version accepted from a server; `nil` (the default) for libcurl's and
      /// the TLS library's own floor. A server that offers less fails the request with
      /// ``HTTPError/transport(_:)`` (`secureConnectionFailed`).
      public var minimumTLSVersion: TLSVersion?
      /// How long making a connection may take — the name lookup, TCP's handshake and TLS's —
      /// apart from the request's own deadline: past it the request fails with
      /// ``HTTPError/timedOut``. `nil` (the default) for libcurl's 300 seconds; the request's
      /// deadline still holds. Whole milliseconds.
      public var connectTimeout: Duration?
      /// Which HTTP version requests speak; ``HTTPVersion/automatic`` by default.
      public var httpVersion = HTTPVersion.automatic
      /// Host names answered with an address of your choice instead of the name system's,
      /// for a host and port (AsyncHTTPClient issue 866's "pin a host name to an address").
      /// The request keeps its URL: its `Host` field, TLS's server name and certificate check
      /// are the name's, only the connection goes to the address.
      public var addressOverrides: [AddressOverride] = []
      /// The proxy every request and WebSocket connection goes through, unless its host is
      /// one the proxy excludes; `nil` (the default) for the environment's (`http_proxy`,
      /// `https_proxy`, `no_proxy`, as curl reads them).
      public var proxy: ProxyConfiguration?
      /// How long a connection may stay idle and still carry a new request; `nil` (the
      /// default) for libcurl's 118 seconds. Whole seconds, rounded up. Up to 100 idle
      /// connections are kept over all hosts (four per request in flight, when that is more),
      /// the oldest closed first.
      public var maximumIdleTime: Duration?
      /// How long after it was made a connection may still carry a new request (a request
      /// under way finishes on it); `nil` (the default) for no limit. Set it so that a pool
      /// behind a load balancer moves to new servers. Whole seconds, rounded up.
      public var maximumConnectionLifetime: Duration?

      /// The default configuration.
      public init() {}
    }

    /// The HTTP version a ``CurlTransport``'s requests speak.
    public enum HTTPVersion: Sendable, Hashable {
      /// HTTP/2 over TLS where the server offers it (ALPN), HTTP/1.1 otherwise and for
      /// plain `http`: what a libcurl built with nghttp2 does; without nghttp2, HTTP/1.1.
      case automatic
      /// HTTP/1.1 only, also where the server offers HTTP/2.
      case http1Only
      /// HTTP/2 from the first byte, without asking (prior knowledge, RFC 9113 §3.3), over
      /// plain `http` too (h2c): for servers known to speak it, such as a gRPC backend. A
      /// server that does not answers nothing the transport can read, and the request fails.
      /// Needs a libcurl built with nghttp2 (``CurlTransport/libraryVersion`` lists it): without
      /// it, every request fails with ``HTTPError/invalidRequest(reason:)``. With a libcurl
      /// before 8.0 (Debian 12 has 7.88.1), each request over plain `http` has a connection of
      /// its own, closed after it: those versions fail a request on a reused cleartext
      /// prior-knowledge connection (over TLS they reuse it as usual).
      case http2PriorKnowledge

      /// libcurl's `CURLOPT_HTTP_VERSION` value.
      var curlValue: Int {
        switch self {
        case .automatic: Curl.http2OverTLS
        case .http1Only: Curl.http11
        case .http2PriorKnowledge: Curl.http2PriorKnowledge
        }
      }
    }

    /// A host name and port answered with an address of your choice (see
    /// ``Configuration/addressOverrides``).
    public struct AddressOverride: Sendable, Hashable {
      /// The host name, as URLs give it.
      public var host: String
      /// The port, as URLs give it (or their scheme's: 80 for `http`, 443 for `https`).
      public var port: Int
      /// The address connected to instead: IPv4 (`10.0.0.7`) or IPv6 (`::1`), no brackets.
      public var address: String

      /// `host` on `port` goes to `address`.
      public init(host: String, port: Int, address: String) {
        self.host = host
        self.port = port
        self.address = address
      }

      /// libcurl's `CURLOPT_RESOLVE` entry: `host:port:address`, IPv6 in brackets.
      var curlEntry: String {
        let address = self.address.contains(":") ? "[\(self.address)]" : self.address
        return "\(host):\(port):\(address)"
      }
    }
  }
#endif
