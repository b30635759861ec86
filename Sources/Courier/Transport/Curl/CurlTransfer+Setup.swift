// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation
  import FoundationNetworking
  import Glibc

  /// Setting up a transfer's easy handle, on the caller's thread before the driver has it.
  extension CurlTransfer {
    /// Makes and configures the easy handle; throws (and frees it) if libcurl refuses.
    func prepare(upload: CurlUpload?, settings: CurlTransport.Settings) throws(HTTPError) {
      guard let easy = driver.handles.make() else {
        throw Curl.unavailable("CurlTransport: curl_easy_init failed")
      }
      self.easy = easy
      self.upload = upload
      if let feed = upload?.feed, let body = request.body {
        let driver = self.driver
        feed.start(reading: body) { [weak self] in
          if let self { driver.resume(self, receiving: false) }
        }
      }
      do {
        try configure(easy, settings: settings)
      } catch {
        release()
        throw error
      }
    }

    func configure(_ easy: UnsafeMutableRawPointer, settings: CurlTransport.Settings)
      throws(HTTPError)
    {
      let me = Unmanaged.passUnretained(self).toOpaque()
      // A Unix domain socket's URL: its HTTP request, over the socket.
      let unix = UnixSocketURL(url)
      let httpURL = unix?.httpURL ?? url
      try set(Curl.Option.url, httpURL.absoluteString)
      if let unix { try set(Curl.Option.unixSocketPath, unix.socketPath) }
      try set(Curl.Option.noSignal, 1)
      try set(Curl.Option.tcpNoDelay, 1)
      let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Curl.errorBufferSize)
      errorText.initialize(to: 0)
      self.errorText = errorText
      try check(courier_curl_easy_setopt_pointer(easy, Curl.Option.errorBuffer, errorText))
      // A proxy's answer to CONNECT (https_proxy) is not the response: keep it from the head.
      try set(Curl.Option.suppressConnectHeaders, 1)
      if httpURL.scheme?.lowercased() == "https" {
        try set(Curl.Option.pipeWait, 1)  // wait for a connection that may multiplex (HTTP/2)
      }
      try Self.setHTTPVersion(settings.configuration.httpVersion.curlValue) { version in
        courier_curl_easy_setopt_long(easy, Curl.Option.httpVersion, version)
      }
      if settings.configuration.httpVersion == .http2PriorKnowledge, !Curl.reusesPriorKnowledge,
        httpURL.scheme?.lowercased() != "https"
      {
        // A connection of its own, closed after it (see ``Curl/reusesPriorKnowledge``); over
        // TLS, ALPN has said HTTP/2, and a reused connection is not switched again.
        try set(Curl.Option.freshConnect, 1)
        try set(Curl.Option.forbidReuse, 1)
      }
      _ = courier_curl_easy_setopt_pointer(easy, Curl.Option.protocolsString, "http,https")
      try settings.applyConnection(to: easy, pooled: true)
      self.settings = settings
      try check(courier_curl_easy_setopt_pointer(easy, Curl.Option.writeData, me))
      try check(courier_curl_easy_setopt_data_callback(easy, Curl.Option.writeFunction, curlWrite))
      try check(courier_curl_easy_setopt_pointer(easy, Curl.Option.headerData, me))
      try check(
        courier_curl_easy_setopt_data_callback(easy, Curl.Option.headerFunction, curlHeader))
      if options.uploadProgress != nil {
        try check(courier_curl_easy_setopt_pointer(easy, Curl.Option.xferInfoData, me))
        try check(
          courier_curl_easy_setopt_progress_callback(
            easy, Curl.Option.xferInfoFunction, curlProgress))
        try set(Curl.Option.noProgress, 0)
      }

      let method = request.head.httpMethod?.uppercased() ?? "GET"
      if let upload {
        try set(Curl.Option.post, 1)
        try check(courier_curl_easy_setopt_pointer(easy, Curl.Option.readData, me))
        try check(courier_curl_easy_setopt_data_callback(easy, Curl.Option.readFunction, curlRead))
        try check(
          courier_curl_easy_setopt_offset(easy, Curl.Option.postFieldSizeLarge, upload.length ?? -1)
        )
        if method != "POST" { try set(Curl.Option.customRequest, method) }
      } else if method == "HEAD" {
        try set(Curl.Option.noBody, 1)
      } else if method != "GET" {
        try set(Curl.Option.customRequest, method)
      }

      // libcurl sends a request again on a fresh connection when a reused one closed before
      // any answer came, though the whole request may have reached the server: a method that
      // is not idempotent is not sent twice (RFC 9110 §9.2.2; see `aboutToSend()`). Without
      // the option (libcurl before 7.80) it is as before.
      if !HTTPMethod(rawValue: method).isIdempotent {
        _ = courier_curl_easy_setopt_prereq(easy, curlPrerequest, me)
      } else if upload?.rewinds == true {
        // An idempotent request's body in memory or in files is read again from its start
        // for that second sending; a stream cannot be, and its request fails instead.
        try check(courier_curl_easy_setopt_seek(easy, curlSeek, me))
      }

      var list: UnsafeMutableRawPointer?
      var sawType = false
      var sawExpect = false
      var encoding: String?
      for (name, value) in request.head.allHTTPHeaderFields ?? [:] {
        switch name.lowercased() {
        // libcurl frames the body itself, from the upload's length.
        case "content-length", "transfer-encoding": continue
        // Sent, and decoded, by libcurl: what the request asks for, or all it can decode.
        case "accept-encoding":
          encoding = value
          continue
        case "content-type": sawType = true
        case "expect": sawExpect = true
        default: break
        }
        // "Name:" with nothing after it tells libcurl to remove the field; "Name;" sends it
        // with an empty value.
        let line = value.allSatisfy { $0 == " " || $0 == "\t" } ? "\(name);" : "\(name): \(value)"
        list = courier_curl_slist_append(list, line)
      }
      // Without these, libcurl would add a form Content-Type to a body without one, and
      // `Expect: 100-continue` (and a wait for it) to a large one.
      if upload != nil && !sawType { list = courier_curl_slist_append(list, "Content-Type:") }
      if !sawExpect { list = courier_curl_slist_append(list, "Expect:") }
      headerList = list
      if let list {
        try check(courier_curl_easy_setopt_pointer(easy, Curl.Option.httpHeader, list))
      }
      // A request whose body is a stream asks for no content coding unless it names one: a
      // chunked response to it is read raw (see `headEnded()`), and libcurl undoes a content
      // coding only of a body it de-chunks itself.
      if let encoding = encoding ?? (upload?.feed == nil ? "" : nil) {
        try set(Curl.Option.acceptEncoding, encoding)
      } else {
        decodesContent = false
      }
    }

    func set(_ option: Int32, _ value: Int) throws(HTTPError) {
      try check(courier_curl_easy_setopt_long(easy, option, value))
    }

    func set(_ option: Int32, _ value: String) throws(HTTPError) {
      // libcurl copies string options (since 7.17.0).
      try check(courier_curl_easy_setopt_pointer(easy, option, value))
    }

    /// Asks libcurl for HTTP `version` through `set` (`CURLOPT_HTTP_VERSION`). A libcurl built
    /// without HTTP/2 (no nghttp2) refuses HTTP/2 with `CURLE_UNSUPPORTED_PROTOCOL`: over TLS,
    /// HTTP/1.1 is asked for then, what libcurl speaks with a server that does not offer h2;
    /// with prior knowledge, which no HTTP/1.1 can stand in for, the request is refused.
    static func setHTTPVersion(_ version: Int, with set: (Int) -> Int32) throws(HTTPError) {
      var code = set(version)
      if code == Curl.unsupportedProtocol, version == Curl.http2PriorKnowledge {
        throw .invalidRequest(
          reason: "HTTP/2 with prior knowledge needs a libcurl built with nghttp2, and this one "
            + "is not (\(Curl.version ?? "libcurl"))")
      }
      if code == Curl.unsupportedProtocol, version != Curl.http11 { code = set(Curl.http11) }
      guard code == 0 else { throw HTTPError(curlCode: code) }
    }

    func check(_ code: Int32) throws(HTTPError) {
      guard code == 0 else { throw HTTPError(curlCode: code) }
    }
  }
#endif
