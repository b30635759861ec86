// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation
  import FoundationNetworking
  import Glibc

  extension CurlWebSocket {
    /// Opens a connection to `url` and runs the handshake on the transport's driver; returns
    /// once the server has answered it.
    static func open(
      _ request: TransportRequest, url: URL, options: TransportWebSocketOptions,
      settings: CurlTransport.Settings, driver: CurlDriver, timer: DeadlineTimer
    ) async throws(HTTPError) -> TransportWebSocket {
      let socket = CurlWebSocket(options: options, timer: timer, driver: driver)
      let opening = try CurlWebSocket.Opening(request, url: url, options: options)
      // Whichever comes first answers the caller: the driver, or a cancellation (which does
      // not wait for libcurl to notice, in the middle of a DNS lookup or a TLS handshake).
      let outcome = FirstOutcome<Result<TransportWebSocket, HTTPError>>()
      let result = await withTaskCancellationHandler {
        socket.scheduleDeadline()
        socket.link.prepare(opening, settings: settings) { opened in
          // A connection opened after its caller left is closed at once.
          if !outcome.finish(opened), case .success = opened { socket.cancel() }
        }
        driver.connect(socket)
        return await outcome.value()
      } onCancel: {
        socket.cancel()
        outcome.finish(.failure(.cancelled))
      }
      return try result.get()
    }
  }

  extension CurlWebSocket {
    /// The driver's side of a connection: the libcurl handle, the socket and the parsers,
    /// touched under the driver's lock alone (by whichever thread holds it). Nothing here
    /// blocks: each turn (``pump()``) moves what the socket takes and holds now, then has the
    /// driver watch the socket for what the connection waits for.
    ///
    /// What it learns for callers (a message, a written frame, the end) is handed to them
    /// through ``CurlDriver/later(_:)``, once the driver's lock is let go.
    ///
    /// `@unchecked Sendable`: used under the driver's lock alone (and by the opening thread
    /// before the connection is handed to the driver).
    final class Link: @unchecked Sendable {
      enum Phase {
        /// libcurl connects (name, proxy tunnel, TLS) on the driver's WebSocket multi handle.
        case connecting
        /// The upgrade request goes out and the answer's head comes in.
        case handshake
        /// Frames move both ways.
        case open
        /// The connection has been let go.
        case done
      }

      unowned let socket: CurlWebSocket
      var phase = Phase.connecting
      var opening: Opening?
      var settings: CurlTransport.Settings?
      var opened: (@Sendable (Result<TransportWebSocket, HTTPError>) -> Void)?
      var easy: UnsafeMutableRawPointer?
      var fd: Int32 = -1
      /// Whether the connection is plain TCP (a `ws` URL, with no proxy or an `http` one),
      /// whose bytes go straight through its socket rather than through libcurl.
      var plain = false
      /// The sockets libcurl has made for the connection and not closed (while it connects).
      var sockets: Set<Int32> = []
      /// libcurl closed the connection's socket under it (found dead while another connected).
      var lost = false
      /// What the driver watches the socket for now.
      var watching = (reading: false, writing: false)
      var frames: WebSocketFrameReader
      var messages: WebSocketMessageReader
      /// The handshake's bytes still to write, and the answer's bytes so far.
      var request: [UInt8] = []
      var answer: [UInt8] = []
      var refused: HTTPResponse?
      /// Frames taken from the state to write, and how far they are written.
      var batch: [UInt8] = []
      var offset = 0
      /// The server's close frame has been read.
      var closedByPeer = false

      init(socket: CurlWebSocket) {
        self.socket = socket
        frames = WebSocketFrameReader(
          maximumPayload: socket.options.maximumMessageSize, readsMaskedFrames: false)
        messages = WebSocketMessageReader(maximumMessage: socket.options.maximumMessageSize)
      }

      var driver: CurlDriver { socket.driver }

      func prepare(
        _ opening: Opening, settings: CurlTransport.Settings,
        opened: @escaping @Sendable (Result<TransportWebSocket, HTTPError>) -> Void
      ) {
        self.opening = opening
        self.settings = settings
        self.opened = opened
        request = opening.head
      }

      // MARK: Connecting

      /// An easy handle that connects to the opening's URL (`CURLOPT_CONNECT_ONLY`: DNS,
      /// proxy tunnel and TLS), for the driver's WebSocket multi handle.
      func makeHandle() throws(HTTPError) -> UnsafeMutableRawPointer {
        try Curl.library.get()
        guard let opening, let easy = courier_curl_easy_init() else {
          throw Curl.unavailable("CurlTransport: libcurl made no handle")
        }
        self.easy = easy
        func set(_ option: Int32, _ value: Int) {
          _ = courier_curl_easy_setopt_long(easy, option, value)
        }
        _ = courier_curl_easy_setopt_pointer(easy, Curl.Option.url, opening.url.absoluteString)
        set(Curl.Option.connectOnly, 1)
        set(Curl.Option.noSignal, 1)
        set(Curl.Option.tcpNoDelay, 1)
        // Through an HTTP proxy the bytes must go to the origin: tunnel with CONNECT.
        set(Curl.Option.httpProxyTunnel, 1)
        set(Curl.Option.httpVersion, Curl.http11)  // no ALPN to h2: the upgrade is HTTP/1.1
        // libcurl keeps a finished connect-only connection among its idle ones, and closes
        // idle ones older than this when another connects: never, for an open WebSocket.
        set(Curl.Option.maxAgeConnection, Int(Int32.max))
        _ = courier_curl_easy_setopt_pointer(easy, Curl.Option.protocolsString, "http,https")
        try settings?.applyConnection(to: easy, pooled: false)
        // libcurl tells of each socket it makes, and closes them through the driver: the one
        // left once connected is the connection's. (CURLINFO_ACTIVESOCKET would tell too, by
        // walking every connection of the multi handle in libcurl 7.88.)
        _ = courier_curl_easy_setopt_sockopt(
          easy,
          { user, socket, _ in
            guard let user else { return 0 }
            let webSocket = Unmanaged<CurlWebSocket>.fromOpaque(user).takeUnretainedValue()
            webSocket.driver.made(socket, for: webSocket)
            return 0
          }, Unmanaged.passUnretained(socket).toOpaque())
        _ = courier_curl_easy_setopt_close_socket(
          easy,
          { user, socket in
            guard let user else { return 0 }
            Unmanaged<CurlDriver>.fromOpaque(user).takeUnretainedValue().socketClosed(socket)
            return 0
          }, Unmanaged.passUnretained(driver).toOpaque())
        return easy
      }

      /// libcurl has connected (`code` 0) or failed to.
      func connected(code: Int32) {
        guard phase == .connecting, let opening else { return }
        guard code == 0 else { return failOpening(HTTPError(curlCode: code, url: opening.url)) }
        var active: Int32 = -1
        if sockets.count == 1, let made = sockets.first { active = made }
        driver.connected(sockets)
        sockets = []
        guard let easy, active >= 0 || courier_curl_easy_active_socket(easy, &active) == 0,
          active >= 0
        else {
          return failOpening(
            .transport(.cannotConnectToHost, reason: "libcurl gave no connected socket"))
        }
        fd = active
        plain = opening.url.scheme?.lowercased() == "http" && !Self.proxyHasTLS
        driver.adopt(socket, fd: fd)
        phase = .handshake
        pump()
      }

      // MARK: A turn

      /// Moves what can move now, without waiting, and has the driver watch for the rest.
      func pump() {
        switch phase {
        case .connecting:
          if let failure = socket.state.withLock({ $0.stopsNow ? $0.failure : nil }) {
            failOpening(failure)
          }
        case .handshake:
          do throws(HTTPError) {
            try handshakeTurn()
          } catch {
            failOpening(error)
          }
          if phase == .open { exchange() }
        case .open:
          exchange()
        case .done:
          return
        }
      }

      /// The handshake failed with `error` (or was ended from outside, which then says why):
      /// the connection is let go, and the opener told.
      func failOpening(_ error: HTTPError) {
        socket.handshakeEnded()
        let failure = socket.state.withLock { state in
          state.isFinished = true
          return state.failure ?? error
        }
        release()
        let opened = self.opened
        self.opened = nil
        driver.later { opened?(.failure(failure)) }
      }

      // MARK: Moving bytes

      /// Sends what the socket takes now of `bytes[offset...]`: how many bytes (0: none yet).
      ///
      /// A plain connection's bytes go straight through its socket: libcurl 7.88 finds a
      /// connect-only handle's connection, at each `curl_easy_send` and `curl_easy_recv`, by
      /// walking every connection of its multi handle, which with 10,000 connections made
      /// each call cost a scan of all of them. Through TLS, libcurl must do the I/O.
      func send(_ bytes: [UInt8], from offset: Int) throws(HTTPError) -> Int {
        guard !lost else { throw Self.lostConnection }
        if plain {
          let sent = bytes.withUnsafeBytes { raw in
            Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
          }
          if sent >= 0 { return sent }
          if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return 0 }
          throw HTTPError(curlCode: Curl.sendError)
        }
        var sent = 0
        let code = bytes.withUnsafeBytes { raw in
          courier_curl_easy_send(easy, raw.baseAddress! + offset, raw.count - offset, &sent)
        }
        if code == Curl.again { return 0 }
        guard code == 0 else { throw HTTPError(curlCode: code) }
        return sent
      }

      /// Reads what has arrived into the driver's buffer: how many bytes, 0 at the end of the
      /// stream, `nil` when nothing has arrived yet. (One buffer serves every connection: only
      /// the holder of the driver's lock reads.)
      func receive() throws(HTTPError) -> Int? {
        // libcurl closes a connection only once its peer has ended it (or it failed).
        guard !lost else { return 0 }
        if plain {
          let received = driver.buffer.withUnsafeMutableBytes { raw in
            Glibc.recv(fd, raw.baseAddress, raw.count, 0)
          }
          if received >= 0 { return received }
          if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return nil }
          throw HTTPError(curlCode: Curl.receiveError)
        }
        var received = 0
        let code = driver.buffer.withUnsafeMutableBytes { raw in
          courier_curl_easy_recv(easy, raw.baseAddress, raw.count, &received)
        }
        if code == Curl.again { return nil }
        guard code == 0 else { throw HTTPError(curlCode: code) }
        return received
      }

      /// Whether the proxy the environment names for `http` URLs, if any, is reached over TLS
      /// (`https://`), as libcurl reads them: then the bytes go through libcurl.
      static var proxyHasTLS: Bool {
        let environment = ProcessInfo.processInfo.environment
        return ["http_proxy", "all_proxy", "ALL_PROXY"].contains {
          environment[$0]?.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("https")
            == true
        }
      }

      static let lostConnection = HTTPError.transport(
        .networkConnectionLost, reason: "the WebSocket connection was closed")

      /// Has the driver watch the socket for reading and/or writing (for neither: not at all).
      func watch(reading: Bool, writing: Bool) {
        guard fd >= 0, !lost, watching != (reading, writing) else { return }
        watching = (reading, writing)
        driver.watch(fd, reading: reading, writing: writing)
      }

      /// libcurl closed the socket: the connection can only end.
      func socketLost() {
        lost = true
        watching = (false, false)
      }

      func release() {
        phase = .done
        driver.connected(sockets)
        sockets = []
        driver.letGo(socket, easy: easy, fd: lost ? -1 : fd)
        easy = nil
        fd = -1
        batch = []
        request = []
        answer = []
      }
    }
  }
#endif
