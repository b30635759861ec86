// CurlTransport exists where FoundationNetworking does (Linux): there URLSession is libcurl
// under a thick layer of glue, and calling libcurl directly is faster and can do what the glue
// cannot (pause a transfer, millisecond timeouts, HTTP/2 control, timings). Apple platforms
// have URLSession itself.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation
  import FoundationNetworking

  /// The system's libcurl, loaded once per process, and the values from its headers that
  /// Courier uses (include/curl/curl.h and multi.h; libcurl keeps them stable).
  enum Curl {
    /// The loaded library, or why it could not be loaded.
    static let library: Result<Void, HTTPError> = {
      var message = [CChar](repeating: 0, count: 512)
      guard courier_curl_load(&message, message.count) == 0 else {
        let reason = String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
        return .failure(unavailable("CurlTransport: \(reason)"))
      }
      return .success(())
    }()

    /// The content codings this libcurl decodes: gzip and deflate, and br and zstd when it
    /// was built with them.
    static let decodedCodings: Set<String> = {
      var codings: Set<String> = ["identity", "gzip", "x-gzip", "deflate"]
      if version?.contains("brotli/") == true { codings.insert("br") }
      if version?.contains("zstd/") == true { codings.insert("zstd") }
      return codings
    }()

    /// Whether libcurl can undo every coding these `Content-Encoding` values list.
    static func decodes(_ values: [String]) -> Bool {
      values.allSatisfy { value in
        value.split(separator: ",").allSatisfy {
          decodedCodings.contains($0.trimmingCharacters(in: .whitespaces).lowercased())
        }
      }
    }

    /// `curl_version()`, such as "libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13 brotli/1.0.9 …".
    static var version: String? {
      guard case .success = library, let text = courier_curl_version() else { return nil }
      return String(cString: text)
    }

    /// Whether this libcurl can reuse a connection it made with HTTP/2 prior knowledge.
    /// Before 8.0.0 it switched a reused one to HTTP/2 a second time (curl issue 10634), so
    /// the request failed ("Error in the HTTP2 framing layer"), and so did every later one on
    /// that connection.
    static let reusesPriorKnowledge = reusesPriorKnowledge(version: version)

    /// Whether libcurl of `version` (`curl_version()`'s text) is 8.0.0 or later.
    static func reusesPriorKnowledge(version: String?) -> Bool {
      guard let version, version.hasPrefix("libcurl/"),
        let number = version.split(separator: " ").first?.dropFirst("libcurl/".count),
        let major = Int(number.prefix { $0 != "." })
      else { return false }
      return major >= 8
    }

    /// Whether libcurl looks host names up without blocking (almost every build: a threaded
    /// resolver or c-ares). Only then is a request started on its caller's thread, which must
    /// never wait for a DNS answer; otherwise the driver's thread starts it.
    static let resolvesAsynchronously: Bool = {
      guard case .success = library else { return false }
      return courier_curl_resolves_asynchronously() != 0
    }()

    static func unavailable(_ message: String) -> HTTPError {
      .transport(URLError(.cannotLoadFromNetwork, userInfo: [NSLocalizedDescriptionKey: message]))
    }

    // MARK: Easy options (CURLOPT_*: a type base plus a number)

    enum Option {
      static let writeData: Int32 = 10_001
      static let url: Int32 = 10_002
      static let errorBuffer: Int32 = 10_010
      static let readData: Int32 = 10_009
      static let writeFunction: Int32 = 20_011
      static let readFunction: Int32 = 20_012
      static let httpHeader: Int32 = 10_023
      static let headerData: Int32 = 10_029
      static let customRequest: Int32 = 10_036
      static let noProgress: Int32 = 43
      static let httpProxyTunnel: Int32 = 61
      static let connectOnly: Int32 = 141
      static let noBody: Int32 = 44
      static let post: Int32 = 47
      static let xferInfoData: Int32 = 10_057
      static let caPath: Int32 = 10_097
      static let caInfoBlob: Int32 = 40_309
      static let headerFunction: Int32 = 20_079
      static let httpVersion: Int32 = 84
      static let freshConnect: Int32 = 74
      static let forbidReuse: Int32 = 75
      static let noSignal: Int32 = 99
      static let acceptEncoding: Int32 = 10_102
      static let httpTransferDecoding: Int32 = 157
      static let httpContentDecoding: Int32 = 158
      static let postFieldSizeLarge: Int32 = 30_120
      static let tcpNoDelay: Int32 = 121
      static let xferInfoFunction: Int32 = 20_219
      static let pinnedPublicKey: Int32 = 10_230
      static let unixSocketPath: Int32 = 10_231
      static let connectTimeoutMilliseconds: Int32 = 156
      static let resolve: Int32 = 10_203
      static let maxLifetimeConnection: Int32 = 314
      static let sslCertificate: Int32 = 10_025
      static let keyPassword: Int32 = 10_026
      static let sslCertificateType: Int32 = 10_086
      static let sslKey: Int32 = 10_087
      static let sslCertificateBlob: Int32 = 40_291
      static let sslVersion: Int32 = 32
      static let proxy: Int32 = 10_004
      static let proxyUsername: Int32 = 10_175
      static let proxyPassword: Int32 = 10_176
      static let noProxy: Int32 = 10_177
      static let pipeWait: Int32 = 237
      static let protocolsString: Int32 = 10_318
      static let suppressConnectHeaders: Int32 = 265
      static let maxAgeConnection: Int32 = 288
    }

    enum MultiOption {
      static let pipelining: Int32 = 3
      static let maxHostConnections: Int32 = 7
      static let maxConnects: Int32 = 6
    }

    // MARK: Info (CURLINFO_*: a type base plus a number)

    enum Info {
      /// `CURLINFO_HTTP_CONNECTCODE`: the proxy's answer to `CONNECT`, 0 when none came.
      static let connectCode: Int32 = 0x20_0016
      /// `CURLINFO_PROXY_ERROR` (libcurl 7.73): why a SOCKS proxy failed (`CURLproxycode`).
      static let proxyError: Int32 = 0x20_003B
      /// `CURLINFO_OS_ERRNO`: the system's error number of a failed connect.
      static let osErrno: Int32 = 0x20_0019
      static let numConnects: Int32 = 0x20_001A
      static let httpVersion: Int32 = 0x20_002E
      static let totalTime: Int32 = 0x60_0032
      static let nameLookupTime: Int32 = 0x60_0033
      static let connectTime: Int32 = 0x60_0034
      static let startTransferTime: Int32 = 0x60_0036
      static let appConnectTime: Int32 = 0x60_0038
    }

    /// `CURL_ERROR_SIZE`: the bytes an error buffer holds.
    static let errorBufferSize = 256
    /// `CURL_WRITEFUNC_PAUSE` and `CURL_READFUNC_PAUSE`: the callback takes nothing now.
    static let pauseTransfer = 0x1000_0001
    /// `CURL_READFUNC_ABORT`.
    static let abortRead = 0x1000_0000
    /// `CURLPAUSE_RECV`: receiving stays paused (the reader has no room).
    static let pauseReceiving: Int32 = 1
    /// `CURLPAUSE_SEND`: sending stays paused (the body has nothing to send yet).
    static let pauseSending: Int32 = 4
    /// `CURLE_AGAIN`: a connect-only socket is not ready to send or receive.
    static let again: Int32 = 81
    /// `CURLE_UNSUPPORTED_PROTOCOL`: also what setting an HTTP version the build lacks gives.
    static let unsupportedProtocol: Int32 = 1
    /// `CURLE_SEND_ERROR` and `CURLE_RECV_ERROR`.
    static let sendError: Int32 = 55
    static let receiveError: Int32 = 56
    /// `CURL_HTTP_VERSION_1_1`.
    static let http11 = 2
    /// `CURL_HTTP_VERSION_2TLS`: HTTP/2 over TLS where the server offers it, HTTP/1.1 else.
    static let http2OverTLS = 4
    /// `CURL_SSLVERSION_TLSv1_2` and `_TLSv1_3`.
    static let tls12 = 6
    static let tls13 = 7
    /// `CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE`.
    static let http2PriorKnowledge = 5
    /// `CURL_SOCKET_TIMEOUT`: `curl_multi_socket_action` on libcurl's timer, not a socket.
    static let socketTimeout: Int32 = -1
    /// `CURLPIPE_MULTIPLEX`.
    static let multiplex = 2
  }
#endif
