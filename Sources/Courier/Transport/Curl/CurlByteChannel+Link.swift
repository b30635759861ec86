// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation
  import FoundationNetworking
  import Glibc

  extension CurlByteChannel {
    /// The driver's side of a channel: the libcurl handle, the socket and the bytes on their
    /// way, touched under the driver's lock alone (by whichever thread holds it). Nothing here
    /// blocks: each turn (``pump()``) moves what the socket takes and holds now, then has the
    /// driver watch the socket for what the channel waits for.
    ///
    /// What it learns for callers (bytes read, bytes written, the end) is handed to them
    /// through ``CurlDriver/later(_:)``, once the driver's lock is let go.
    ///
    /// `@unchecked Sendable`: used under the driver's lock alone (and by the connecting
    /// thread before the channel is handed to the driver).
    final class Link: @unchecked Sendable {
      enum Phase {
        /// libcurl connects (name, proxy tunnel, TLS) on the driver's connect-only multi
        /// handle.
        case connecting
        /// Bytes move both ways.
        case open
        /// The connection has been let go.
        case done
      }

      unowned let channel: CurlByteChannel
      var phase = Phase.connecting
      var url: URL?
      var settings: CurlTransport.Settings?
      var connected: (@Sendable (Result<Void, HTTPError>) -> Void)?
      var easy: UnsafeMutableRawPointer?
      /// libcurl's account of a failure to connect (`CURLOPT_ERRORBUFFER`), while connecting.
      var connectError: UnsafeMutablePointer<CChar>?
      var fd: Int32 = -1
      /// Whether the connection is plain TCP (an `http` URL, with no proxy or an `http`
      /// one), whose bytes go straight through its socket rather than through libcurl.
      var plain = false
      /// The sockets libcurl has made for the connection and not closed (while it connects).
      var sockets: Set<Int32> = []
      /// libcurl closed the connection's socket under it (found dead while another connected).
      var lost = false
      /// What the driver watches the socket for now.
      var watching = (reading: false, writing: false)
      /// Bytes taken from the state to write, and how far they are written.
      var batch: [UInt8] = []
      var offset = 0

      init(channel: CurlByteChannel) {
        self.channel = channel
      }

      var driver: CurlDriver { channel.driver }

      func prepare(
        url: URL, settings: CurlTransport.Settings,
        connected: @escaping @Sendable (Result<Void, HTTPError>) -> Void
      ) {
        self.url = url
        self.settings = settings
        self.connected = connected
      }

      // MARK: Connecting

      /// An easy handle that connects to the channel's URL (`CURLOPT_CONNECT_ONLY`: DNS,
      /// proxy tunnel and TLS), for the driver's connect-only multi handle.
      func makeHandle() throws(HTTPError) -> UnsafeMutableRawPointer {
        guard let url, let easy = courier_curl_easy_init() else {
          throw Curl.unavailable("CurlTransport: libcurl made no handle")
        }
        self.easy = easy
        func set(_ option: Int32, _ value: Int) {
          _ = courier_curl_easy_setopt_long(easy, option, value)
        }
        _ = courier_curl_easy_setopt_pointer(easy, Curl.Option.url, url.absoluteString)
        let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Curl.errorBufferSize)
        errorText.initialize(to: 0)
        connectError = errorText
        _ = courier_curl_easy_setopt_pointer(easy, Curl.Option.errorBuffer, errorText)
        set(Curl.Option.connectOnly, 1)
        set(Curl.Option.noSignal, 1)
        set(Curl.Option.tcpNoDelay, 1)
        // Through an HTTP proxy the bytes must go to the origin: tunnel with CONNECT.
        set(Curl.Option.httpProxyTunnel, 1)
        set(Curl.Option.httpVersion, Curl.http11)  // no ALPN to h2: the bytes are the caller's
        // libcurl keeps a finished connect-only connection among its idle ones, and closes
        // idle ones older than this when another connects: never, for an open channel.
        set(Curl.Option.maxAgeConnection, Int(Int32.max))
        _ = courier_curl_easy_setopt_pointer(easy, Curl.Option.protocolsString, "http,https")
        try settings?.applyConnection(to: easy, pooled: false)
        // libcurl tells of each socket it makes, and closes them through the driver: the one
        // left once connected is the connection's. (CURLINFO_ACTIVESOCKET would tell too, by
        // walking the connections of its cache in libcurl 7.88.)
        _ = courier_curl_easy_setopt_sockopt(
          easy,
          { user, socket, _ in
            guard let user else { return 0 }
            let channel = Unmanaged<CurlByteChannel>.fromOpaque(user).takeUnretainedValue()
            channel.driver.made(socket, for: channel)
            return 0
          }, Unmanaged.passUnretained(channel).toOpaque())
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
        guard phase == .connecting, let url else { return }
        let detail = code == 0 ? nil : connectError.map { String(cString: $0) }
        forgetConnectError()
        guard code == 0 else {
          return failConnecting(
            HTTPError.routeRefused(by: easy, code: code, url: url)
              ?? HTTPError(curlCode: code, url: url, detail: detail))
        }
        var active: Int32 = -1
        if sockets.count == 1, let made = sockets.first { active = made }
        driver.connected(sockets)
        sockets = []
        guard let easy, active >= 0 || courier_curl_easy_active_socket(easy, &active) == 0,
          active >= 0
        else {
          return failConnecting(
            .transport(.cannotConnectToHost, reason: "libcurl gave no connected socket"))
        }
        fd = active
        plain = url.scheme?.lowercased() == "http" && !Self.proxyHasTLS
        driver.watched[fd] = channel
        phase = .open
        channel.state.withLock { $0.isConnecting = false }
        let connected = self.connected.take()
        driver.later { connected?(.success(())) }
        exchange()
      }

      /// Connecting failed with `error` (or was ended from outside, which then says why):
      /// the connection is let go, and the caller told.
      func failConnecting(_ error: HTTPError) {
        let failure = channel.state.withLock { state in
          state.isFinished = true
          return state.failure ?? error
        }
        release()
        let connected = self.connected.take()
        driver.later { connected?(.failure(failure)) }
      }

      // MARK: A turn

      /// Moves what can move now, without waiting, and has the driver watch for the rest
      /// (`fromSocket`: the socket is ready, as the driver's epoll said).
      func pump(fromSocket: Bool = false) {
        switch phase {
        case .connecting:
          if let failure = channel.state.withLock({ $0.stopsNow ? $0.failure : nil }) {
            failConnecting(failure)
          }
        case .open:
          exchange(fromSocket: fromSocket)
        case .done:
          return
        }
      }

      /// A turn of the exchange: writes what the writer gave, reads while a reader waits,
      /// until neither can go on; then has the driver watch the socket for what would let it
      /// go on, or, after many rounds, comes back after the driver's other work.
      ///
      /// With no reader waiting, a socket watched for reading stays watched until it turns
      /// readable (`fromSocket`): then it is left unread, and the peer is held back. So a
      /// reader that reads again at once (the usual loop) costs no change to the epoll set.
      func exchange(fromSocket: Bool = false) {
        // The socket said it was readable, and nothing has been read of it this turn.
        var readableUnread = fromSocket
        do throws(HTTPError) {
          for _ in 0..<16 {
            let (stop, reading) = channel.state.withLock { state -> (Bool, Bool) in
              if batch.isEmpty, !state.outgoing.isEmpty {
                swap(&batch, &state.outgoing)
                offset = 0
              }
              return (state.stopsNow, state.reader != nil && !state.peerEnded)
            }
            if stop { return finish() }
            var moved = false
            var blockedWriting = false
            if !batch.isEmpty {
              let sent = try send(batch, from: offset)
              offset += sent
              moved = sent > 0
              blockedWriting = sent == 0
              if offset == batch.count {
                batch = []
                written()
              }
            }
            if reading {
              readableUnread = false
              if let count = try receive() {
                delivered(count == 0 ? nil : Data(driver.buffer[..<count]))
                moved = true
              }
            }
            let keepsReading = reading || (watching.reading && !readableUnread)
            if !moved, sleeps(reading: reading, batch: batch, watchingReads: keepsReading) {
              return watch(reading: keepsReading, writing: blockedWriting)
            }
          }
          driver.runnable.append(channel)
        } catch {
          fail(error)
          finish()
        }
      }

      /// Whether to wait for the socket: nothing came since the turn looked (no bytes to
      /// write, no reader, no end); if so, callers that add work from now on ask the driver
      /// for a turn.
      private func sleeps(reading: Bool, batch: [UInt8], watchingReads: Bool) -> Bool {
        channel.state.withLock { state in
          let reads = state.reader != nil && !state.peerEnded
          let bytesWaiting = batch.isEmpty && !state.outgoing.isEmpty
          guard !bytesWaiting, !state.stopsNow, reads == reading else { return false }
          state.isPolling = true
          // Through TLS, libcurl may hold bytes it has decrypted and the socket not: a read
          // that starts then takes a turn, which asks libcurl.
          state.watchesReading = watchingReads && plain && !lost && !state.peerEnded
          return true
        }
      }

      /// Tells the writer its bytes are written.
      private func written() {
        let writer = channel.state.withLock { $0.writer.take() }
        if let writer { driver.later { writer.resume(returning: .success(())) } }
      }

      /// Hands the reader what was read (`nil`: the peer ended the stream).
      private func delivered(_ bytes: Data?) {
        let reader = channel.state.withLock { state in
          if bytes == nil { state.peerEnded = true }
          return state.reader.take()
        }
        if let reader { driver.later { reader.resume(returning: .success(bytes)) } }
      }

      /// The connection failed with `error`.
      private func fail(_ error: HTTPError) {
        channel.state.withLock { state in
          if state.failure == nil { state.failure = error }
          state.stopsNow = true
        }
      }

      /// Lets go of the connection and answers what still waits.
      func finish() {
        release()
        let answers = channel.state.withLock { state -> @Sendable () -> Void in
          state.isFinished = true
          let failure = state.failure ?? CurlByteChannel.lostConnection
          let (reader, writer) = (state.reader.take(), state.writer.take())
          state.outgoing = []
          return {
            reader?.resume(returning: .failure(failure))
            writer?.resume(returning: .failure(failure))
          }
        }
        driver.later(answers)
      }

      // MARK: Moving bytes

      /// Sends what the socket takes now of `bytes[offset...]`: how many bytes (0: none yet).
      ///
      /// A plain connection's bytes go straight through its socket: libcurl 7.88 finds a
      /// connect-only handle's connection, at each `curl_easy_send` and `curl_easy_recv`, by
      /// walking every connection of its multi handle, which with 10,000 connections made
      /// each call cost a scan of all of them. Through TLS, libcurl must do the I/O.
      func send(_ bytes: [UInt8], from offset: Int) throws(HTTPError) -> Int {
        guard !lost else { throw CurlByteChannel.lostConnection }
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
      /// (`https://`), as libcurl reads them: then the bytes go through libcurl. (Three
      /// `getenv` calls: `ProcessInfo.environment` copied the whole environment, a twentieth
      /// of the time spent opening 10,000 WebSockets.)
      static var proxyHasTLS: Bool {
        ["http_proxy", "all_proxy", "ALL_PROXY"].contains { name in
          guard let value = getenv(name) else { return false }
          return String(cString: value).trimmingCharacters(in: .whitespaces).lowercased()
            .hasPrefix("https")
        }
      }

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

      /// The error buffer is for connecting only: libcurl is told to forget it before it goes.
      private func forgetConnectError() {
        guard let errorText = connectError.take() else { return }
        if let easy { _ = courier_curl_easy_setopt_pointer(easy, Curl.Option.errorBuffer, nil) }
        errorText.deallocate()
      }

      func release() {
        forgetConnectError()
        phase = .done
        driver.connected(sockets)
        sockets = []
        driver.letGo(channel, easy: easy.take(), fd: lost ? -1 : fd)
        fd = -1
        batch = []
      }
    }
  }
#endif
