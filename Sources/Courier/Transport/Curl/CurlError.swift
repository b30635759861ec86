// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation
  import FoundationNetworking

  extension HTTPError {
    /// The error a transfer that libcurl ended with `code` (a `CURLcode`) fails with: the
    /// `URLError` URLSession reports for the same failure, with libcurl's own words and the
    /// URL it failed on. A host that could not be found or reached, other than this machine
    /// itself, while `offline` says no network is up is `notConnectedToInternet`, as
    /// URLSession reports it on Apple platforms.
    ///
    /// `detail` is libcurl's own account of the failure (its error buffer). For a host not
    /// found or not reached, a TLS failure, or a connection lost, it becomes the error's
    /// reason: which certificate check failed (an unknown authority, another host's name, an
    /// expired certificate), how the connection failed, how much of the body was missing, or
    /// how an HTTP/2 stream ended. It names hosts and ports, never a request's path, query or
    /// credentials, nor the environment's proxy credentials libcurl quotes when it cannot use
    /// a proxy URL.
    init(
      curlCode code: Int32, url: URL? = nil, offline: OfflineProbe = .system,
      detail: String? = nil
    ) {
      let urlCode: URLError.Code
      // CURLE_COULDNT_RESOLVE_PROXY / _HOST, CURLE_COULDNT_CONNECT: unreached.
      let unreached = [5, 6, 7].contains(code) && !Self.isLoopback(url?.host)
      switch code {
      case _ where unreached && offline.isOffline(): urlCode = .notConnectedToInternet
      // CURLE_UNSUPPORTED_PROTOCOL: CurlTransport refuses other schemes before a transfer
      // starts, so from a transfer it means an answer libcurl could not read as HTTP (a
      // status line such as "HTTP/1.1 20 OK").
      case 1: urlCode = .badServerResponse
      case 3: urlCode = .badURL  // CURLE_URL_MALFORMAT
      case 5, 6: urlCode = .cannotFindHost  // CURLE_COULDNT_RESOLVE_PROXY / _HOST
      case 7: urlCode = .cannotConnectToHost  // CURLE_COULDNT_CONNECT
      case 8: urlCode = .badServerResponse  // CURLE_WEIRD_SERVER_REPLY
      // CURLE_GOT_NOTHING: the connection closed before a byte of the answer, which
      // ``RetryPolicy`` takes for a failure that may pass (a server restarting).
      case 52: urlCode = .zeroByteResource
      // CURLE_RECV_ERROR in libcurl's words for a head over its limits: a proxy's answer to
      // CONNECT, whose head the transfer never sees (``oversizedHead(curlCode:bytes:url:)``
      // counts an origin's), broke HTTP's rules; no lost connection to retry.
      case 56 where detail?.hasPrefix("Too large response headers") == true:
        urlCode = .badServerResponse
      // CURLE_RECV_ERROR as an HTTP/2 frame libcurl refused to take (its callback failed,
      // nghttp2's -902): a header block over libcurl's limits, or a field it cannot take.
      // The connection was fine; the server sent what HTTP/1.1 would fail as above.
      case 56 where detail?.contains("nghttp2_session_mem_recv() returned -902") == true:
        urlCode = .badServerResponse
      case 16, 18, 55, 56, 92: urlCode = .networkConnectionLost  // HTTP/2, partial, send, recv
      // CURLE_SEND_FAIL_REWIND: a reused connection closed with no answer, and the body, a
      // stream sent once, cannot be sent again on a fresh one.
      case 65: urlCode = .networkConnectionLost
      case 28:  // CURLE_OPERATION_TIMEDOUT
        self = .timedOut
        return
      case 35: urlCode = .secureConnectionFailed  // CURLE_SSL_CONNECT_ERROR
      case 58: urlCode = .clientCertificateRejected  // CURLE_SSL_CERTPROBLEM
      case 60, 83, 90: urlCode = .serverCertificateUntrusted  // verification, issuer, pinned key
      case 61: urlCode = .cannotDecodeContentData  // CURLE_BAD_CONTENT_ENCODING
      case 77: urlCode = .secureConnectionFailed  // CURLE_SSL_CACERT_BADFILE
      default: urlCode = .unknown
      }
      // libcurl's words need libcurl loaded (it is, once a transfer ran; a test may not).
      let loaded = (try? Curl.library.get()) != nil
      let words =
        (loaded ? courier_curl_easy_strerror(code).map { String(cString: $0) } : nil) ?? "error"
      var info: [String: Any] = [NSLocalizedDescriptionKey: "libcurl: \(words) (\(code))"]
      if let url {
        info[NSURLErrorFailingURLErrorKey] = url
      }
      // CURLE_COULDNT_RESOLVE_*, _COULDNT_CONNECT, the TLS failures above, and the lost
      // connections: a body cut short ("transfer closed with 50 bytes remaining to read"), a
      // reset, an HTTP/2 stream the server reset or broke the protocol on.
      if [5, 6, 7, 16, 18, 35, 55, 56, 58, 60, 77, 83, 90, 92].contains(code), let detail,
        !detail.isEmpty
      {
        info[Self.reasonKey] = Redaction.libcurlWords(detail)
      }
      self = .transport(URLError(urlCode, userInfo: info))
    }

    /// The error for a transfer libcurl ended with `code` before the final head when the
    /// head was over libcurl's limits, or `nil` when it was not: the server sent too much,
    /// the connection was fine. libcurl reads at most 300 KiB of head (`CURLE_RECV_ERROR`,
    /// "Too large response headers": libcurl 8.3 on, and Debian's 7.88.1) and 100 KiB in one
    /// field (`CURLE_OUT_OF_MEMORY`, "Rejected … bytes header", the only such failure before
    /// a head). `bytes` is the head libcurl handed over; the line that crossed the limit may
    /// not be in it, so within one field's limit of it counts.
    static func oversizedHead(curlCode code: Int32, bytes: Int, url: URL?) -> HTTPError? {
      let (headLimit, fieldLimit) = (300 * 1024, 100 * 1024)
      guard code == 27 || (code == 56 && bytes > headLimit - fieldLimit) else { return nil }
      var info: [String: Any] = [
        NSLocalizedDescriptionKey:
          "libcurl: the response head is over its limits (300 KiB, 100 KiB a field) (\(code))"
      ]
      if let url { info[NSURLErrorFailingURLErrorKey] = url }
      return .transport(URLError(.badServerResponse, userInfo: info))
    }

    /// The error for a transfer libcurl ended with `code` because the response's chunked body
    /// was malformed (a chunk size that is not hexadecimal, a chunk not ended by CRLF):
    /// `badServerResponse`, which no retry policy takes for a lost connection; `nil` for any
    /// other failure. libcurl reports it as `CURLE_RECV_ERROR`, as it does a connection that
    /// failed (or, for some, `CURLE_BAD_FUNCTION_ARGUMENT`), and says which in `detail`, its
    /// error buffer's words.
    static func malformedChunks(curlCode code: Int32, detail: String?, url: URL?) -> HTTPError? {
      guard code == 56 || code == 43, let detail, detail.contains("chunked-encod") else {
        return nil
      }
      return described(
        .badServerResponse, "the response's chunked body is malformed (libcurl: \(detail))",
        url: url)
    }

    /// The error for a transfer libcurl ended with `code` because the way to the server
    /// refused it: its proxy (``proxyRefused(by:code:url:)``), or the Unix domain socket it
    /// could not connect to (``socketRefused(by:code:url:)``); `nil` for anything else.
    static func routeRefused(by easy: UnsafeMutableRawPointer?, code: Int32, url: URL?)
      -> HTTPError?
    {
      proxyRefused(by: easy, code: code, url: url) ?? socketRefused(by: easy, code: code, url: url)
    }

    /// The error for a transfer to `url`, on a Unix domain socket, that libcurl could not
    /// connect (`CURLE_COULDNT_CONNECT`), or `nil` for another: libcurl's words name
    /// `localhost` port 80, the URL it sends over the socket, and not why. The reason names the
    /// socket's path and the system's words for why (`CURLINFO_OS_ERRNO`): nothing there,
    /// nothing listening (or not a socket), or no permission.
    static func socketRefused(by easy: UnsafeMutableRawPointer?, code: Int32, url: URL?)
      -> HTTPError?
    {
      guard code == 7, let url, let socket = UnixSocketURL(url) else { return nil }
      var number = 0
      if let easy { _ = courier_curl_easy_getinfo_long(easy, Curl.Info.osErrno, &number) }
      let why: String
      switch Int32(number) {
      case ENOENT: why = ": there is no socket there (is the server running?)"
      case ECONNREFUSED: why = ": nothing listens on it, or it is no socket"
      case EACCES, EPERM: why = ": this user may not open it (a group such as docker may)"
      case 0: why = ""
      default: why = ": " + String(cString: strerror(Int32(number)))
      }
      return described(
        .cannotConnectToHost,
        "cannot connect to the Unix domain socket \(socket.socketPath)\(why)", url: url)
    }

    /// The error for a transfer libcurl ended with `code` because its proxy refused it (see
    /// ``tunnelRefused(by:url:)`` and ``socksRefused(by:code:url:)``), or `nil`.
    static func proxyRefused(by easy: UnsafeMutableRawPointer?, code: Int32, url: URL?)
      -> HTTPError?
    {
      guard code != 0, let easy else { return nil }
      return tunnelRefused(by: easy, url: url) ?? socksRefused(by: easy, code: code, url: url)
    }

    /// The error for a transfer that failed because the proxy answered its `CONNECT` with
    /// `status` (`CURLINFO_HTTP_CONNECTCODE` of `easy`), or `nil` when it did not: libcurl
    /// reports it as a failure to receive, which read as a lost connection and was retried.
    /// A `407` is `userAuthenticationRequired` (the proxy's credentials are missing or
    /// wrong), another `4xx` `resourceUnavailable` (the proxy will not reach that host), and
    /// anything else `cannotConnectToHost`, which ``RetryPolicy`` takes for a failure that
    /// may pass (a `502` from a proxy whose upstream is down); the reason names the status.
    private static func tunnelRefused(by easy: UnsafeMutableRawPointer, url: URL?) -> HTTPError? {
      var status = 0
      guard courier_curl_easy_getinfo_long(easy, Curl.Info.connectCode, &status) == 0,
        status >= 300
      else { return nil }
      let code: URLError.Code =
        switch status {
        case 407: .userAuthenticationRequired
        case 400..<500: .resourceUnavailable
        default: .cannotConnectToHost
        }
      let target = url.flatMap { $0.host }.map { " to \($0)" } ?? ""
      return described(
        code,
        "the proxy refused to open a tunnel\(target): it answered CONNECT with \(status) "
          + HTTPURLResponse.localizedString(forStatusCode: status).capitalized
          + (status == 407 ? " (the proxy's user name and password are missing or wrong)" : ""),
        url: url)
    }

    /// The error for a transfer libcurl ended with `CURLE_PROXY` (97), a SOCKS proxy's failure,
    /// by its detail (`CURLINFO_PROXY_ERROR` of `easy`), or `nil` for another `code`; it read
    /// as an unknown error. A refused user name and password is `userAuthenticationRequired`,
    /// a connection the proxy's rules do not allow `resourceUnavailable` (neither retried), a
    /// host the proxy cannot find `cannotFindHost`, and the rest (the host unreachable or
    /// refusing, the proxy failing) `cannotConnectToHost`, which ``RetryPolicy`` retries.
    private static func socksRefused(by easy: UnsafeMutableRawPointer, code: Int32, url: URL?)
      -> HTTPError?
    {
      guard code == 97 else { return nil }
      var detail = 0
      _ = courier_curl_easy_getinfo_long(easy, Curl.Info.proxyError, &detail)
      let target = url.flatMap { $0.host }.map { " to \($0)" } ?? ""
      let (urlCode, why): (URLError.Code, String) =
        switch detail {
        case 12, 33:  // CURLPX_NO_AUTH, CURLPX_USER_REJECTED
          (.userAuthenticationRequired, "refused the user name and password")
        case 23:  // CURLPX_REPLY_NOT_ALLOWED
          (.resourceUnavailable, "does not allow a connection\(target) by its rules")
        case 27: (.cannotFindHost, "could not find the host")  // CURLPX_RESOLVE_HOST
        case 19: (.cannotConnectToHost, "was refused a connection\(target)")
        case 21, 22: (.cannotConnectToHost, "cannot reach the host\(target)")
        default: (.cannotConnectToHost, "failed\(target) (libcurl's proxy error \(detail))")
        }
      return described(urlCode, "the SOCKS proxy " + why, url: url)
    }

    /// A transport error of `code` whose reason, found by Courier, is `reason`, failing at `url`.
    private static func described(_ code: URLError.Code, _ reason: String, url: URL?) -> HTTPError {
      var info: [String: Any] = [NSLocalizedDescriptionKey: reason, reasonKey: reason]
      if let url { info[NSURLErrorFailingURLErrorKey] = url }
      return .transport(URLError(code, userInfo: info))
    }

    /// Whether `host` is this machine (`localhost`, a `.localhost` name, `127.0.0.0/8`,
    /// `::1`), which is reached with no network at all.
    static func isLoopback(_ host: String?) -> Bool {
      guard let host = host?.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
      else { return false }
      return host == "localhost" || host.hasSuffix(".localhost") || host.hasPrefix("127.")
        || host == "::1"
    }
  }
#endif
