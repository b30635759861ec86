// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation
  import FoundationNetworking
  import Glibc

  extension CurlWebSocket {
    /// Opens a connection to `url` and runs the handshake on the connection's own thread;
    /// returns once the server has answered it.
    static func open(
      _ request: TransportRequest, url: URL, options: TransportWebSocketOptions,
      settings: CurlTransport.Settings, timer: DeadlineTimer
    ) async throws(HTTPError) -> TransportWebSocket {
      let socket = try CurlWebSocket(options: options, timer: timer)
      let opening = try CurlWebSocket.Opening(request, url: url, options: options)
      // Whichever comes first answers the caller: the thread, or a cancellation (which does
      // not wait for libcurl to notice, in the middle of a DNS lookup or a TLS handshake).
      let outcome = FirstOutcome<Result<TransportWebSocket, HTTPError>>()
      let result = await withTaskCancellationHandler {
        socket.scheduleDeadline()
        let thread = Thread {
          Loop(socket: socket, settings: settings).run(opening) { opened in
            // A connection opened after its caller left is closed at once.
            if !outcome.finish(opened), case .success = opened { socket.cancel() }
          }
        }
        thread.name = "Courier WebSocket"
        thread.start()
        return await outcome.value()
      } onCancel: {
        socket.cancel()
        outcome.finish(.failure(.cancelled))
      }
      return try result.get()
    }
  }

  extension CurlWebSocket {
    /// The thread's side of a connection: the libcurl handle and the parsers, touched by
    /// no other thread.
    final class Loop {
      let socket: CurlWebSocket
      let settings: CurlTransport.Settings
      var easy: UnsafeMutableRawPointer?
      var fd: Int32 = -1
      var frames: WebSocketFrameReader
      var messages: WebSocketMessageReader
      var buffer = [UInt8](repeating: 0, count: 64 * 1024)
      /// The server's close frame has been read.
      var closedByPeer = false

      init(socket: CurlWebSocket, settings: CurlTransport.Settings) {
        self.socket = socket
        self.settings = settings
        frames = WebSocketFrameReader(
          maximumPayload: socket.options.maximumMessageSize, readsMaskedFrames: false)
        messages = WebSocketMessageReader(maximumMessage: socket.options.maximumMessageSize)
      }

      func run(
        _ opening: Opening, opened: @escaping (Result<TransportWebSocket, HTTPError>) -> Void
      ) {
        let outcome = Result { () throws(HTTPError) -> TransportWebSocket in
          try connect(opening.url)
          return try handshake(opening)
        }
        socket.handshakeEnded()
        if case .failure(let error) = outcome {
          let failure = socket.state.withLock { state in
            state.isFinished = true
            return state.failure ?? error
          }
          release()
          opened(.failure(failure))
          return
        }
        opened(outcome)
        exchange()
        finish()
      }

      // MARK: Connecting

      /// Connects with libcurl (`CURLOPT_CONNECT_ONLY`): DNS, proxy tunnel and TLS.
      private func connect(_ url: URL) throws(HTTPError) {
        try Curl.library.get()
        guard let easy = courier_curl_easy_init() else {
          throw Curl.unavailable("CurlTransport: libcurl made no handle")
        }
        self.easy = easy
        func set(_ option: Int32, _ value: Int) {
          _ = courier_curl_easy_setopt_long(easy, option, value)
        }
        _ = courier_curl_easy_setopt_pointer(easy, Curl.Option.url, url.absoluteString)
        set(Curl.Option.connectOnly, 1)
        set(Curl.Option.noSignal, 1)
        set(Curl.Option.tcpNoDelay, 1)
        // Through an HTTP proxy the bytes must go to the origin: tunnel with CONNECT.
        set(Curl.Option.httpProxyTunnel, 1)
        set(Curl.Option.httpVersion, Curl.http11)  // no ALPN to h2: the upgrade is HTTP/1.1
        _ = courier_curl_easy_setopt_pointer(easy, Curl.Option.protocolsString, "http,https")
        if let authorities = settings.certificateAuthorities {
          _ = courier_curl_easy_setopt_pointer(easy, Curl.Option.caInfo, authorities.path)
        }
        if let pins = settings.pinnedPublicKeys {
          _ = courier_curl_easy_setopt_pointer(easy, Curl.Option.pinnedPublicKey, pins)
        }
        // libcurl asks between its steps whether to go on: not once the socket has ended.
        set(Curl.Option.noProgress, 0)
        _ = courier_curl_easy_setopt_pointer(
          easy, Curl.Option.xferInfoData, Unmanaged.passUnretained(socket).toOpaque())
        _ = courier_curl_easy_setopt_progress_callback(easy, Curl.Option.xferInfoFunction) {
          user, _, _, _, _ in
          guard let user else { return 0 }
          let socket = Unmanaged<CurlWebSocket>.fromOpaque(user).takeUnretainedValue()
          return socket.state.withLock { $0.stopsNow } ? 1 : 0
        }
        let code = courier_curl_easy_perform(easy)
        guard code == 0 else { throw HTTPError(curlCode: code, url: url) }
        var active: Int32 = -1
        guard courier_curl_easy_active_socket(easy, &active) == 0, active >= 0 else {
          throw .transport(.cannotConnectToHost, reason: "libcurl gave no connected socket")
        }
        fd = active
      }

      // MARK: Moving bytes

      /// Writes all of `bytes`, waiting for the socket as needed.
      func write(_ bytes: [UInt8]) throws(HTTPError) {
        var offset = 0
        while offset < bytes.count {
          let moved = try send(bytes, from: offset)
          offset += moved
          if moved == 0 { try wait(reading: false, writing: true) }
        }
      }

      /// Sends what the socket takes now of `bytes[offset...]`: how many bytes (0: none yet).
      func send(_ bytes: [UInt8], from offset: Int) throws(HTTPError) -> Int {
        var sent = 0
        let code = bytes.withUnsafeBytes { raw in
          courier_curl_easy_send(easy, raw.baseAddress! + offset, raw.count - offset, &sent)
        }
        if code == Curl.again { return 0 }
        guard code == 0 else { throw HTTPError(curlCode: code) }
        return sent
      }

      /// Reads what has arrived into `buffer`: how many bytes, 0 at the end of the stream,
      /// `nil` when nothing has arrived yet.
      func receive() throws(HTTPError) -> Int? {
        var received = 0
        let code = buffer.withUnsafeMutableBytes { raw in
          courier_curl_easy_recv(easy, raw.baseAddress, raw.count, &received)
        }
        if code == Curl.again { return nil }
        guard code == 0 else { throw HTTPError(curlCode: code) }
        return received
      }

      /// Sleeps until the socket is ready as asked or the connection is woken; throws
      /// once the connection has been ended from outside (cancelled, timed out).
      func wait(reading: Bool, writing: Bool) throws(HTTPError) {
        var events: Int16 = 0
        if reading { events |= Int16(POLLIN) }
        if writing { events |= Int16(POLLOUT) }
        // A socket asked for nothing is left out: poll would still report its hang-up or
        // error at once, again and again, while the reader has no room.
        var fds = [
          pollfd(fd: events == 0 ? -1 : fd, events: events, revents: 0),
          pollfd(fd: socket.wake.readEnd, events: Int16(POLLIN), revents: 0),
        ]
        _ = poll(&fds, 2, -1)
        if fds[1].revents != 0 { socket.wake.drain() }
        if let failure = socket.state.withLock({ $0.stopsNow ? $0.failure : nil }) {
          throw failure
        }
      }

      func release() {
        if let easy { courier_curl_easy_cleanup(easy) }
        easy = nil
      }
    }
  }
#endif
