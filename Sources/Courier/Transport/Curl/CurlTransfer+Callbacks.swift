// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation
  import FoundationNetworking
  import Glibc

  /// libcurl's callbacks for a transfer, under the driver's lock: the response head line by
  /// line, body bytes (taken, paused or refused), request body bytes, upload progress.
  extension CurlTransfer {
    /// A line of the response head.
    func headerLine(_ bytes: UnsafeRawBufferPointer) -> Int {
      moved()
      if head == nil { headBytes += bytes.count }
      // Read as bytes: Character-level string work here cost 7 % of a small request.
      var end = bytes.count
      while end > 0, bytes[end - 1] == 10 || bytes[end - 1] == 13 { end -= 1 }
      let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
      // After the final head come only trailers (and their blank line): they are not the
      // head's, and must not end it again; they are kept for the end of the body (a folded
      // or malformed line is dropped).
      if head != nil {
        if let field = ResponseHeadReader.field(line) { trailers.append(field) }
        return bytes.count
      }
      if end == 0 {
        // The end of a head: an interim one (100 Continue) is skipped.
        let status = headReader.status
        if (100..<200).contains(status) && status != 101 { return bytes.count }
        return headEnded() ? bytes.count : 0
      }
      headReader.read(line)
      return bytes.count
    }

    func headEnded() -> Bool {
      // No status line that reads "HTTP/x NNN" came (libcurl takes "Http/1.1 200 OK" too).
      guard let response = headReader.response(url: url) else {
        return fail(ResponseHeadReader.noStatusLine(url: url))
      }
      let status = response.status
      guard status != 101 else { return fail(ResponseHeadReader.unaskedSwitch(url: url)) }
      let headers = response.headers
      let lengths = headers.values(for: "Content-Length")
      guard let length = ResponseHeadReader.contentLength(lengths) else {
        return fail(ResponseHeadReader.invalidLength(lengths, url: url))
      }
      var encoded =
        decodesContent
        && (headers["Content-Encoding"].map { $0.lowercased() != "identity" } ?? false)
      if encoded, !Curl.decodes(headers.values(for: "Content-Encoding")), let easy {
        // A coding libcurl cannot undo: the body is handed over as it came, with its
        // Content-Encoding, as browsers do, instead of failing the request (libcurl reads
        // this option for each body write, so it takes effect before the first).
        _ = courier_curl_easy_setopt_long(easy, Curl.Option.httpContentDecoding, 0)
        encoded = false
      }
      let transferCodings = headers.values(for: "Transfer-Encoding").flatMap {
        $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
      }
      if let last = transferCodings.last, last != "chunked", let easy {
        // RFC 9112 §6.3: chunked is not the final coding, so the body runs until the server
        // closes the connection; libcurl, which would fail on a coding it does not know,
        // hands it over as it came.
        // (libcurl undoes transfer and content codings in one stack, which only the content
        // switch bypasses: the body's content coding is then left as it came too.)
        _ = courier_curl_easy_setopt_long(easy, Curl.Option.httpTransferDecoding, 0)
        _ = courier_curl_easy_setopt_long(easy, Curl.Option.httpContentDecoding, 0)
        encoded = true  // its length is unknown
      }
      if transferCodings == ["chunked"], upload?.feed != nil, !encoded, let easy {
        // A streamed body's request: libcurl 7.88 ends the transfer only once the body has
        // been sent too, and says nothing of a chunked response's last chunk before then, so
        // the response is read raw (libcurl reads this option for each body write) and its
        // chunks undone here. One with a content coding libcurl undoes (which the request's
        // own Accept-Encoding asked for) is left to libcurl, and ends with the body.
        _ = courier_curl_easy_setopt_long(easy, Curl.Option.httpTransferDecoding, 0)
        chunks = ChunkedDecoder()
      }
      // A Transfer-Encoding overrides a Content-Length beside it (RFC 9112 §6.3): taken as
      // the length, it ended a streamed request's answer (`gzip, chunked`) early.
      expected = encoded || chunks != nil || !transferCodings.isEmpty ? nil : length
      head = response
      if options.collects(response) {
        // A collected body is held whole: at most the buffer's size of it. (A HEAD answer's
        // or a 304's length is not of a body that comes.)
        if let announced = response.announcedBodyLength(for: request.method),
          announced > Int64(options.bufferSize)
        {
          return fail(.responseTooLarge(limit: options.bufferSize))
        }
        sink = .collect
        if let length, length > 0 {
          collected.reserveCapacity(Int(min(length, Int64(options.bufferSize), 1 << 26)))
        }
      } else {
        // Nobody waits for the head (the caller was cancelled): the transfer ends.
        guard
          let writer = call.receivedHead(
            response, bufferSize: options.streamBufferSize(for: response))
        else {
          return fail(.cancelled)
        }
        sink = .stream(writer)
        // A response with no body has all come with its head.
        if status == 204 || status == 304 || (length == 0 && transferCodings.isEmpty) {
          responseEnded()
        }
      }
      return true
    }

    /// The whole response has come. While a streamed request body is still being sent,
    /// libcurl would end the transfer only after the body, which a producer that waits for
    /// the response (a conversation) or never ends would hold open: the response ends for its
    /// reader now, and the exchange with it. The transfer is taken out of the driver (closing
    /// its connection, which libcurl cannot reuse mid-request) and the body's producer stopped.
    func responseEnded() {
      guard case .stream(let writer) = sink, upload?.feed != nil, !bodySent, !call.isFinished else {
        return
      }
      reportTimings()
      if !trailers.isEmpty { writer.buffer.trailers = HTTPHeaders(trailers) }
      call.responseEndedFirst()
    }

    /// Body bytes, decoded by libcurl or, read raw, by ``chunks``: `bytes.count` when taken,
    /// `Curl.pauseTransfer` when the reader's buffer is full, 0 to end the transfer.
    func bodyBytes(_ bytes: UnsafeRawBufferPointer) -> Int {
      guard failure == nil, sink != nil else { return 0 }
      guard var decoder = chunks else { return take(bytes) }
      moved()
      let decoded: Data
      do throws(HTTPError) {
        decoded = try decoder.decode(bytes)
      } catch {
        _ = fail(error)
        return 0
      }
      if !decoded.isEmpty {
        let taken = decoded.withUnsafeBytes { take($0) }
        // Paused (libcurl hands the same bytes again, to the decoder as it was) or ended.
        guard taken == decoded.count else { return taken }
      }
      let ended = decoder.isComplete && chunks?.isComplete == false
      chunks = decoder
      if ended {
        trailers = decoder.trailers
        responseEnded()
      }
      return bytes.count
    }

    /// Decoded body bytes for the sink: `bytes.count` when taken, `Curl.pauseTransfer` when
    /// the reader's buffer is full, 0 to end the transfer.
    private func take(_ bytes: UnsafeRawBufferPointer) -> Int {
      guard let sink else { return 0 }
      let count = Int64(bytes.count)
      switch sink {
      case .collect:
        guard received + count <= Int64(options.bufferSize) else {
          _ = fail(.responseTooLarge(limit: options.bufferSize))
          return 0
        }
        collected.append(contentsOf: bytes)
      case .stream(let writer):
        let driver = self.driver
        do throws(HTTPError) {
          guard
            try writer.buffer.offer(
              Data(bytes),
              whenRoom: { [weak self] in
                if let self { driver.resume(self, receiving: true) }
              })
          else {
            pausedForReader = true
            call.pausedForCaller()
            return Curl.pauseTransfer
          }
        } catch {
          return 0  // the reader ended the body; its end already stops the transfer
        }
      }
      received += count
      moved()
      if received == expected { responseEnded() }
      return bytes.count
    }

    /// Request body bytes for libcurl to send, into `buffer`: how many (0 at the end),
    /// `Curl.pauseTransfer` while a streamed body has none yet, or `Curl.abortRead`.
    func bodyToSend(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
      guard let upload else { return 0 }
      switch upload.read(into: buffer) {
      case .bytes(let count):
        if count > 0 { moved() } else { bodySent = true }
        return count
      case .waits:
        // The wait is the body's producer's, not the network's: not idle meanwhile.
        pausedForBody = true
        call.pausedForCaller()
        return Curl.pauseTransfer
      case .failed(let error):
        _ = fail(error)
        return Curl.abortRead
      }
    }

    /// libcurl's progress figures: request body bytes sent.
    func progressed(uploaded: Int64, of total: Int64) {
      guard uploaded > sent else { return }
      sent = uploaded
      moved()
      options.uploadProgress?(uploaded, total > 0 ? total : nil)
    }

    /// Records a failure a callback decided, for the transfer's end; returns false, for
    /// callbacks to hand libcurl.
    /// The request is about to go out on a connection: the first time, or again because the
    /// reused connection it went out on closed with no answer. A request of a method that is
    /// not idempotent (libcurl asks only for those) is not sent a second time: the server may
    /// have acted on it, and only the caller can know whether doing so twice is safe.
    /// libcurl reads the body again from `offset` (from its start, to send the request again
    /// on a fresh connection); false when it cannot be (a stream, a place other than the
    /// start), which fails the transfer.
    func rewindBody(to offset: Int64, origin: Int32) -> Bool {
      guard origin == SEEK_SET, offset == 0, let upload, upload.rewind() else { return false }
      bodySent = false
      return true
    }

    func aboutToSend() -> Bool {
      sendings += 1
      guard sendings > 1 else { return true }
      let method = request.head.httpMethod ?? "POST"
      let reason =
        "the connection closed before an answer came, and the server may have acted on the "
        + "request; a \(method) is not sent again on its own (RFC 9110 §9.2.2)"
      return fail(
        .transport(
          URLError(
            .networkConnectionLost,
            userInfo: [
              NSLocalizedDescriptionKey: reason, HTTPError.reasonKey: reason,
              NSURLErrorFailingURLErrorKey: url,
            ])))
    }

    func fail(_ error: HTTPError) -> Bool {
      if failure == nil { failure = error }
      return false
    }
  }

  // libcurl's callbacks: C functions, given the transfer as their user pointer.

  let curlWrite: courier_curl_data_callback = { buffer, size, count, user in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    return transfer.bodyBytes(UnsafeRawBufferPointer(start: buffer, count: size * count))
  }

  let curlHeader: courier_curl_data_callback = { buffer, size, count, user in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    return transfer.headerLine(UnsafeRawBufferPointer(start: buffer, count: size * count))
  }

  let curlRead: courier_curl_data_callback = { buffer, size, count, user in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    return transfer.bodyToSend(UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
  }

  let curlPrerequest: courier_curl_prereq_callback = { user, _, _, _, _ in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    return transfer.aboutToSend() ? 0 : 1
  }

  let curlSeek: courier_curl_seek_callback = { user, offset, origin in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    return transfer.rewindBody(to: offset, origin: origin) ? 0 : 2
  }

  let curlProgress: courier_curl_progress_callback = { user, _, _, uploadTotal, uploaded in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    transfer.progressed(uploaded: uploaded, of: uploadTotal)
    return 0
  }
#endif
