// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation

  extension CurlTransport {
    /// What every request and WebSocket connection of the transport is made with: the
    /// ``Configuration`` as libcurl takes it.
    struct Settings: Sendable {
      var configuration: Configuration
      /// The configuration's trust as libcurl takes it, or why it cannot be used (every
      /// request then fails with it); `nil` for the system's default.
      let trust: Result<Trust, HTTPError>?
      /// The address overrides as a libcurl list, kept while any handle may read it.
      let resolve: CurlList?
      /// Asked, when a connection could not be made, whether the machine is offline.
      var offline = OfflineProbe.system

      /// `configuration` as libcurl takes it; `systemDirectory` and `systemBundle` are where
      /// the system keeps its roots (tests pretend).
      init(
        _ configuration: Configuration,
        systemDirectory: @autoclosure () -> String? = Trust.systemDirectory,
        systemBundle: @autoclosure () -> Data? = Trust.systemBundle
      ) {
        self.configuration = configuration
        trust = configuration.trust.flatMap { $0.changesDefault ? $0 : nil }
          .map {
            $0.resolved().map {
              Trust($0, systemDirectory: systemDirectory(), systemBundle: systemBundle())
            }
          }
        resolve = CurlList(configuration.addressOverrides.map(\.curlEntry))
      }

      /// Sets on `easy` how its connection is made: trust, pins, the client identity, the
      /// lowest TLS version, the connect timeout and the address overrides, and — for a
      /// connection returned to the pool (`pooled`; not a WebSocket's) — how long it may be
      /// reused. Throws libcurl's first refusal, a trust that cannot be used, or an identity
      /// that cannot be used.
      func applyConnection(to easy: UnsafeMutableRawPointer, pooled: Bool) throws(HTTPError) {
        var codes: [Int32] = []
        if let trust {
          codes += try trust.get().apply(to: easy)
        }
        if let identity = configuration.clientIdentity {
          codes += try Self.apply(identity, to: easy)
        }
        if let proxy = configuration.proxy {
          if let refusal = proxy.refusal { throw refusal }
          codes += Self.apply(proxy, to: easy)
        }
        if let minimum = configuration.minimumTLSVersion {
          let version = minimum == .tls13 ? Curl.tls13 : Curl.tls12
          codes.append(courier_curl_easy_setopt_long(easy, Curl.Option.sslVersion, version))
        }
        if let timeout = configuration.connectTimeout {
          codes.append(
            courier_curl_easy_setopt_long(
              easy, Curl.Option.connectTimeoutMilliseconds, Self.milliseconds(timeout)))
        }
        if let resolve {
          codes.append(courier_curl_easy_setopt_pointer(easy, Curl.Option.resolve, resolve.head))
        }
        if pooled, let idle = configuration.maximumIdleTime {
          codes.append(
            courier_curl_easy_setopt_long(easy, Curl.Option.maxAgeConnection, Self.seconds(idle)))
        }
        if pooled, let lifetime = configuration.maximumConnectionLifetime {
          codes.append(
            courier_curl_easy_setopt_long(
              easy, Curl.Option.maxLifetimeConnection, Self.seconds(lifetime)))
        }
        if let refusal = codes.first(where: { $0 != 0 }) { throw HTTPError(curlCode: refusal) }
      }

      /// Sets `proxy` on `easy`: `socks5h` (the proxy resolves names) or `http`, its
      /// credentials (as they are: see ``literal(_:)``), and the hosts it excludes (none: the environment's `no_proxy` is not
      /// read then).
      static func apply(_ proxy: ProxyConfiguration, to easy: UnsafeMutableRawPointer) -> [Int32] {
        let scheme = proxy.kind == .socks5 ? "socks5h" : "http"
        var codes = [
          courier_curl_easy_setopt_pointer(
            easy, Curl.Option.proxy, "\(scheme)://\(proxy.hostForURL):\(proxy.port)"),
          courier_curl_easy_setopt_pointer(easy, Curl.Option.noProxy, noProxy(proxy.exclusions)),
        ]
        if let username = proxy.username {
          codes.append(
            courier_curl_easy_setopt_pointer(easy, Curl.Option.proxyUsername, literal(username)))
        }
        if let password = proxy.password {
          codes.append(
            courier_curl_easy_setopt_pointer(easy, Curl.Option.proxyPassword, literal(password)))
        }
        return codes
      }

      /// `text` as libcurl's proxy user name and password options take it: libcurl URL-decodes
      /// them (a password's `%2F` went to the proxy as `/`), so each `%` is given as `%25`,
      /// which it decodes back. Nothing else is decoded.
      static func literal(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25")
      }

      /// `hosts` as libcurl's `NOPROXY` list. libcurl knows a name (and its subdomains), a
      /// leading dot, and `*` alone; `*.example.com`, the wildcard spelling other tools (and
      /// CFNetwork's exceptions) take, it would compare as a literal name that no host has, and
      /// send `api.example.com` through the proxy: it is given as `.example.com`.
      static func noProxy(_ hosts: [String]) -> String {
        hosts.map { $0.hasPrefix("*.") ? String($0.dropFirst()) : $0 }.joined(separator: ",")
      }

      /// Sets `identity` on `easy`, or throws why it cannot be used
      /// (``ClientIdentity/refusal()``): PEM files by path, a PKCS#12 bundle as a blob libcurl
      /// copies, and the passphrase.
      static func apply(_ identity: ClientIdentity, to easy: UnsafeMutableRawPointer)
        throws(HTTPError) -> [Int32]
      {
        if let refusal = identity.refusal() { throw refusal }
        var codes: [Int32] = []
        switch identity.source {
        case .pem(let certificate, let key):
          codes.append(
            courier_curl_easy_setopt_pointer(easy, Curl.Option.sslCertificateType, "PEM"))
          codes.append(
            courier_curl_easy_setopt_pointer(easy, Curl.Option.sslCertificate, certificate.path))
          codes.append(courier_curl_easy_setopt_pointer(easy, Curl.Option.sslKey, key.path))
        case .pkcs12(let data):
          codes.append(
            courier_curl_easy_setopt_pointer(easy, Curl.Option.sslCertificateType, "P12"))
          codes.append(
            data.withUnsafeBytes {
              courier_curl_easy_setopt_blob(
                easy, Curl.Option.sslCertificateBlob, $0.baseAddress, $0.count)
            })
        }
        // Always one, empty when none was given: without it, OpenSSL asks for the passphrase
        // of an encrypted key on the terminal, and the transport's thread waits for an answer.
        codes.append(
          courier_curl_easy_setopt_pointer(
            easy, Curl.Option.keyPassword, identity.passphrase ?? ""))
        return codes
      }

      /// `duration` in whole milliseconds, rounded up, at least 1, at most `Int.max` (a
      /// `Duration` holds more: `.seconds(Int64.max)` overflowed, and crashed the process).
      static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = Int(seconds).multipliedReportingOverflow(by: 1000)
        let (total, carry) = whole.addingReportingOverflow(
          Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
        return overflow || carry ? (seconds > 0 ? .max : 1) : max(1, total)
      }

      /// `duration` in whole seconds, rounded up, at least 1, at most `Int.max`.
      static func seconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let (total, carry) = Int(seconds).addingReportingOverflow(attoseconds > 0 ? 1 : 0)
        return carry ? .max : max(1, total)
      }
    }
  }

  /// A libcurl string list (`curl_slist`), freed when the last holder lets it go.
  ///
  /// `@unchecked Sendable`: the list is built in `init` and never changed; libcurl only reads it.
  final class CurlList: @unchecked Sendable {
    let head: UnsafeMutableRawPointer

    /// A list of `strings`; `nil` for none, or when libcurl cannot be loaded (then every
    /// request fails anyway, saying why).
    init?(_ strings: [String]) {
      guard !strings.isEmpty, case .success = Curl.library else { return nil }
      var head: UnsafeMutableRawPointer?
      for string in strings { head = courier_curl_slist_append(head, string) }
      guard let head else { return nil }
      self.head = head
    }

    deinit {
      courier_curl_slist_free_all(head)
    }
  }
#endif
