// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation
  import FoundationNetworking

  /// The transport over libcurl's multi interface, for Linux, and the default there: clients
  /// given no transport share one process-wide `CurlTransport` whenever the system's
  /// `libcurl.so.4` (the one FoundationNetworking itself runs on) loads — see ``isAvailable`` —
  /// and get a ``URLSessionTransport`` when it does not. The library is loaded when the first
  /// transport is made, with no package dependency and nothing to install. Requests are sent
  /// from the caller's thread (where libcurl resolves names without blocking, as common builds
  /// do); one thread of the transport's own waits on its sockets for the answers and carries
  /// its WebSocket connections (no thread per connection), so clients you give a transport
  /// should share one rather than each make one.
  ///
  /// ```swift
  /// let client = HTTPClient(baseURL: url)    // on Linux: the process's shared CurlTransport
  /// let images = HTTPClient(baseURL: imageURL, transport: client.transport)  // the same one
  /// ```
  ///
  /// The environment variable `COURIER_TRANSPORT` chooses the default of clients given no
  /// transport instead: `urlsession` for ``URLSessionTransport``, `curl` for this one (even
  /// where libcurl does not load); other values are ignored. So a whole test suite runs on
  /// either: `COURIER_TRANSPORT=urlsession swift test`.
  ///
  /// What it adds to ``URLSessionTransport`` on Linux: a fraction of the time per request
  /// (see BENCHMARKS.md), real back-pressure (a streamed body's transfer pauses while the
  /// reader's buffer is full, so nothing spills to disk and the server is slowed down), a
  /// body past the size limit ending the transfer at once, deadlines and idle timeouts in
  /// milliseconds, cancellation that closes the connection at once, HTTP/2 over TLS where
  /// the server offers it (with a libcurl built with nghttp2, which ``libraryVersion`` then
  /// lists; without it, HTTP/1.1), gzip, deflate, brotli and zstd (as the library supports
  /// them) decoded with the limit counting decoded bytes, a custom certificate authority and
  /// public-key pinning, and timings from libcurl in ``HTTPEvent/measured(_:_:)``.
  ///
  /// What is the same: the transport contract (the conformance suite in `CourierTesting`
  /// holds both; redirects, cookies and credentials are the client's, above any transport),
  /// proxies from the environment (`http_proxy`, `https_proxy`, `no_proxy`, as curl
  /// reads them). No cookies are stored, and there is no URL cache.
  ///
  /// If libcurl cannot be loaded, every request fails with ``HTTPError/transport(_:)``
  /// saying why, and nothing is sent; a client given no transport then gets a
  /// ``URLSessionTransport`` instead, unless `COURIER_TRANSPORT=curl` asks for this one.
  public final class CurlTransport: HTTPTransport {
    let settings: Settings
    let driver: Result<CurlDriver, HTTPError>
    /// Times the deadlines of byte channels' connects (requests' are the driver's).
    let deadlines = DeadlineTimer()

    /// A transport with its own connections and thread.
    ///
    /// - Parameters:
    ///   - maximumConnectionsPerHost: Connections to one host at once; 32 by default
    ///     (HTTP/2 carries many requests over one).
    ///   - trust: Which servers are trusted (certificate authorities of your own, pinned public
    ///     keys; see ``ServerTrust``); `nil` (the default) for the system's roots.
    public convenience init(maximumConnectionsPerHost: Int = 32, trust: ServerTrust? = nil) {
      var configuration = Configuration()
      configuration.maximumConnectionsPerHost = maximumConnectionsPerHost
      configuration.trust = trust
      self.init(configuration: configuration)
    }

    /// A transport with its own connections and thread, made and kept as `configuration`
    /// says (see ``Configuration``).
    public convenience init(configuration: Configuration) {
      self.init(settings: Settings(configuration))
    }

    /// A transport with default settings that asks `offline` whether the machine is offline
    /// (tests pretend).
    convenience init(offline: OfflineProbe) {
      var settings = Settings(Configuration())
      settings.offline = offline
      self.init(settings: settings)
    }

    init(settings: Settings) {
      self.settings = settings
      let connections = settings.configuration.maximumConnectionsPerHost
      driver = Result { () throws(HTTPError) in
        try CurlDriver(maximumConnectionsPerHost: connections)
      }
    }

    deinit {
      if case .success(let driver) = driver { driver.shutdown() }
    }

    /// Whether the system's libcurl could be loaded; when it cannot, every request fails
    /// with the reason.
    public static var isAvailable: Bool {
      if case .success = Curl.library { true } else { false }
    }

    /// libcurl's version and features, such as "libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13
    /// brotli/1.0.9 zstd/1.5.4 nghttp2/1.52.0"; `nil` when it cannot be loaded.
    public static var libraryVersion: String? { Curl.version }

    /// Returns once the transport's thread sleeps with nothing to do (for tests).
    func sleepsIdle() async {
      if case .success(let driver) = driver { await driver.sleepsIdle() }
    }

    /// Sends `request` within `options`' limits: one exchange, a transfer set up here and
    /// handed to the driver (usually sent from this thread at once). A redirect is returned
    /// as it came.
    public func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
      -> TransportResponse
    {
      let driver = try self.driver.get()
      guard !Task.isCancelled else { throw .cancelled }
      guard let url = request.head.url, let scheme = url.scheme?.lowercased(),
        scheme == "http" || scheme == "https" || UnixSocketURL(url) != nil,
        url.host?.isEmpty == false
      else { throw .transport(URLError(.unsupportedURL)) }
      let transfer = CurlTransfer(
        request: request, url: url, options: options, driver: driver)
      try transfer.prepare(upload: request.body.map(CurlUpload.init), settings: settings)
      let result = await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
          transfer.call.start(continuation, transfer: CurlTransfer.Handle(transfer: transfer))
        }
      } onCancel: {
        transfer.end(with: .cancelled)
      }
      return try result.get()
    }
  }

  extension CurlTransport: CustomReflectable {
    /// The transport's configuration (whose proxy password and client identity passphrase
    /// show redacted), never its driver: the driver carries the transfers in flight of every
    /// client that shares the transport, their requests' credentials included, and a dump of
    /// one client (or of the transport) must show none of them.
    public var customMirror: Mirror {
      Mirror(self, children: ["configuration": settings.configuration], displayStyle: .class)
    }
  }

  extension CurlTransport: HoldsCredentials {
    /// The login of the configured proxy, or of the environment's proxies when none is
    /// configured (libcurl reads `http_proxy` and the others itself).
    var heldCredentials: [String] {
      settings.configuration.proxy.map(\.secrets) ?? Redaction.environmentProxyCredentials
    }
  }
#endif
