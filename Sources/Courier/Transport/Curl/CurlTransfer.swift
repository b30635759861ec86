// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation
  import FoundationNetworking
  import Glibc

  /// One request on libcurl: its easy handle, set up on the caller's thread and then driven
  /// by the ``CurlDriver``'s thread, whose callbacks build the head and take the body.
  ///
  /// The caller is answered exactly once, by whichever comes first: the head (streaming),
  /// the whole exchange (collected, or written to a file), a failure, the caller's
  /// cancellation, or a timeout. Cancellation and timeouts answer at once and then have the
  /// driver take the handle out of the multi handle, which closes its connection.
  ///
  /// `@unchecked Sendable`: what the callers' threads and the driver's share is `phase`, a
  /// lock-guarded box; everything else is touched by the driver's thread alone once the
  /// transfer is submitted (and by the submitting thread alone before).
  final class CurlTransfer: @unchecked Sendable {
    typealias Continuation = CheckedContinuation<Result<TransportResponse, HTTPError>, Never>

    enum Phase {
      case idle
      case endedBeforeStart(HTTPError)
      case waiting(Continuation)
      case streaming(ResponseBodyWriter)
      case finished
    }

    /// Where the body of the response goes.
    enum Sink {
      /// Into memory, handed over with the head at the end (a buffered send, a redirect).
      case collect
      /// Into a file of the body's own, handed over at the end (a download).
      case file(URL, FileHandle)
      /// To the caller as it arrives, pausing the transfer when the reader falls behind.
      case stream(ResponseBodyWriter)
    }

    let request: TransportRequest
    let options: TransportOptions
    let url: URL
    let driver: CurlDriver
    /// Whether the transport follows this head itself (a redirect): its body is collected.
    let followed: @Sendable (HTTPResponse) -> Bool
    private let phase = Locked(Phase.idle)

    // The driver's thread's alone, once submitted:
    private(set) var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutableRawPointer?
    private var upload: CurlUpload?
    private var status = 0
    private var fields: [HTTPHeaders.Field] = []
    private var head: HTTPResponse?
    private var sink: Sink?
    private var collected = Data()
    private var received: Int64 = 0
    private var expected: Int64?
    private var sent: Int64 = 0
    /// A failure a callback decided (over the limit, a malformed head): the transfer's result.
    private var failure: HTTPError?
    /// When a byte last moved either way, for the idle timeout.
    private(set) var lastActivity: ContinuousClock.Instant
    /// Whether the reader's buffer is full and the transfer paused until it drains.
    var pausedForReader = false
    let startedAt: ContinuousClock.Instant
    /// When the exchange must have ended, from the options.
    let deadline: ContinuousClock.Instant?

    init(
      request: TransportRequest, url: URL, options: TransportOptions, driver: CurlDriver,
      deadline: ContinuousClock.Instant?,
      followed: @escaping @Sendable (HTTPResponse) -> Bool
    ) {
      self.request = request
      self.url = url
      self.options = options
      self.driver = driver
      self.deadline = deadline
      self.followed = followed
      startedAt = .now
      lastActivity = startedAt
    }

    // MARK: - Set-up (the caller's thread)

    /// Makes and configures the easy handle; throws (and frees it) if libcurl refuses.
    func prepare(upload: CurlUpload?, settings: CurlTransport.Settings) throws(HTTPError) {
      guard let easy = courier_curl_easy_init() else {
        throw Curl.unavailable("CurlTransport: curl_easy_init failed")
      }
      self.easy = easy
      self.upload = upload
      do {
        try configure(easy, settings: settings)
      } catch {
        release()
        throw error
      }
    }

    private func configure(_ easy: UnsafeMutableRawPointer, settings: CurlTransport.Settings)
      throws(HTTPError)
    {
      let me = Unmanaged.passUnretained(self).toOpaque()
      try set(Curl.Option.url, url.absoluteString)
      try set(Curl.Option.noSignal, 1)
      try set(Curl.Option.followLocation, 0)  // Courier follows redirects by its own policy
      try set(Curl.Option.tcpNoDelay, 1)
      if url.scheme?.lowercased() == "https" {
        try set(Curl.Option.pipeWait, 1)  // wait for a connection that may multiplex (HTTP/2)
      }
      try set(Curl.Option.httpVersion, settings.httpVersion)
      _ = courier_curl_easy_setopt_pointer(easy, Curl.Option.protocolsString, "http,https")
      if let authorities = settings.certificateAuthorities {
        try set(Curl.Option.caInfo, authorities.path)
      }
      if let pins = settings.pinnedPublicKeys {
        try set(Curl.Option.pinnedPublicKey, pins)
      }
      try check(courier_curl_easy_setopt_pointer(easy, Curl.Option.writeData, me))
      try check(courier_curl_easy_setopt_data_callback(easy, Curl.Option.writeFunction, curlWrite))
      try check(courier_curl_easy_setopt_pointer(easy, Curl.Option.headerData, me))
      try check(
        courier_curl_easy_setopt_data_callback(easy, Curl.Option.headerFunction, curlHeader))
      if options.progress != nil {
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

      var list: UnsafeMutableRawPointer?
      var sawType = false
      var sawExpect = false
      var encoding = ""
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
        list = courier_curl_slist_append(list, "\(name): \(value)")
      }
      // Without these, libcurl would add a form Content-Type to a body without one, and
      // `Expect: 100-continue` (and a wait for it) to a large one.
      if upload != nil && !sawType { list = courier_curl_slist_append(list, "Content-Type:") }
      if !sawExpect { list = courier_curl_slist_append(list, "Expect:") }
      headerList = list
      if let list {
        try check(courier_curl_easy_setopt_pointer(easy, Curl.Option.httpHeader, list))
      }
      try set(Curl.Option.acceptEncoding, encoding)
    }

    private func set(_ option: Int32, _ value: Int) throws(HTTPError) {
      try check(courier_curl_easy_setopt_long(easy, option, value))
    }

    private func set(_ option: Int32, _ value: String) throws(HTTPError) {
      // libcurl copies string options (since 7.17.0).
      try check(courier_curl_easy_setopt_pointer(easy, option, value))
    }

    private func check(_ code: Int32) throws(HTTPError) {
      guard code == 0 else { throw HTTPError(curlCode: code) }
    }

    // MARK: - The caller's side

    /// Waits for the answer; the transfer is handed to the driver unless it ended first.
    func start(_ continuation: Continuation) {
      let ended = phase.withLock { phase -> HTTPError? in
        if case .endedBeforeStart(let error) = phase {
          phase = .finished
          return error
        }
        phase = .waiting(continuation)
        return nil
      }
      if let ended {
        release()
        return continuation.resume(returning: .failure(ended))
      }
      driver.add(self)
    }

    /// Ends the exchange now with `error` (cancelled, timed out, stopped by the reader),
    /// unless it has ended, and has the driver stop the transfer.
    func end(with error: HTTPError) {
      let (continuation, writer, started) = phase.withLock {
        phase -> (Continuation?, ResponseBodyWriter?, Bool) in
        switch phase {
        case .idle:
          phase = .endedBeforeStart(error)
          return (nil, nil, false)
        case .waiting(let continuation):
          phase = .finished
          return (continuation, nil, true)
        case .streaming(let writer):
          phase = .finished
          return (nil, writer, true)
        case .endedBeforeStart, .finished:
          return (nil, nil, false)
        }
      }
      continuation?.resume(returning: .failure(error))
      writer?.fail(error)
      if started { driver.remove(self) }
    }

    /// Whether the caller has its answer and the body, if any, has ended.
    var hasEnded: Bool {
      phase.withLock { if case .finished = $0 { true } else { false } }
    }

    /// Answers the caller still waiting.
    private func answer(_ result: Result<TransportResponse, HTTPError>) {
      let continuation = phase.withLock { phase -> Continuation? in
        guard case .waiting(let continuation) = phase else { return nil }
        if case .success = result, case .stream(let writer) = sink {
          phase = .streaming(writer)
        } else {
          phase = .finished
        }
        return continuation
      }
      continuation?.resume(returning: result)
    }

    // MARK: - libcurl's callbacks (the driver's thread)

    /// A line of the response head.
    func headerLine(_ bytes: UnsafeRawBufferPointer) -> Int {
      lastActivity = .now
      var line = Substring(String(decoding: bytes, as: UTF8.self))
      while line.last?.isNewline == true { line.removeLast() }  // "\r\n" is one Character
      if line.hasPrefix("HTTP/") {
        let parts = line.split(separator: " ", maxSplits: 2)
        status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        fields = []
      } else if line.isEmpty {
        // The end of a head: an interim one (100 Continue) is skipped.
        if (100..<200).contains(status) && status != 101 { return bytes.count }
        return headEnded() ? bytes.count : 0
      } else if let colon = line.firstIndex(of: ":") {
        let name = String(line[..<colon])
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        fields.append(HTTPHeaders.Field(name: name, value: value))
      }
      return bytes.count
    }

    private func headEnded() -> Bool {
      let headers = HTTPHeaders(fields)
      let response = HTTPResponse(status: status, headers: headers, body: Data(), url: url)
      let lengths = Set(
        headers.values(for: "Content-Length").flatMap { $0.split(separator: ",") }
          .map { $0.trimmingCharacters(in: .whitespaces) })
      guard lengths.count <= 1 else {
        return fail(.transport(URLError(.badServerResponse)))
      }
      let length = lengths.first.flatMap { Int64($0) }
      let encoded = headers["Content-Encoding"].map { $0.lowercased() != "identity" } ?? false
      expected = encoded ? nil : length
      if let maximum = options.maximumBytes, let length, length > Int64(maximum) {
        return fail(.responseTooLarge(limit: maximum))
      }
      head = response
      if options.collectsBody || followed(response) {
        sink = .collect
        if let length, length > 0 {
          collected.reserveCapacity(
            Int(min(length, Int64(options.maximumBytes ?? Int.max), 1 << 26)))
        }
      } else if options.prefersFile {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
          "courier-download-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: file.path, contents: nil),
          let handle = FileHandle(forWritingAtPath: file.path)
        else { return fail(.transport(URLError(.cannotCreateFile))) }
        sink = .file(file, handle)
      } else {
        let (body, writer) = ResponseBody.makeStream(bufferSize: options.bufferSize) {
          [weak self] error in self?.end(with: error)
        }
        sink = .stream(writer)
        answer(.success(TransportResponse(head: response, body: body)))
      }
      return true
    }

    /// Body bytes, decoded: `bytes.count` when taken, `Curl.pauseTransfer` when the reader's
    /// buffer is full, 0 to end the transfer.
    func bodyBytes(_ bytes: UnsafeRawBufferPointer) -> Int {
      guard failure == nil, let sink else { return 0 }
      let count = Int64(bytes.count)
      if let maximum = options.maximumBytes, received + count > Int64(maximum) {
        _ = fail(.responseTooLarge(limit: maximum))
        return 0
      }
      switch sink {
      case .collect:
        collected.append(contentsOf: bytes)
      case .file(_, let handle):
        guard Self.writeAll(bytes, to: handle.fileDescriptor) else {
          _ = fail(.transport(URLError(.cannotWriteToFile)))
          return 0
        }
      case .stream(let writer):
        let driver = self.driver
        do throws(HTTPError) {
          guard
            try writer.buffer.offer(
              Data(bytes),
              whenRoom: { [weak self] in
                if let self { driver.resume(self) }
              })
          else {
            pausedForReader = true
            return Curl.pauseTransfer
          }
        } catch {
          return 0  // the reader ended the body; its end already stops the transfer
        }
      }
      received += count
      lastActivity = .now
      options.progress?(.received(received, of: expected))
      return bytes.count
    }

    /// Writes all of `bytes` to `descriptor`, again after a signal (EINTR), where FileHandle
    /// would fail; false on any other error.
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
      var offset = 0
      while offset < bytes.count {
        let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if count > 0 {
          offset += count
        } else if count < 0 && errno != EINTR {
          return false
        }
      }
      return true
    }

    /// Request body bytes for libcurl to send, into `buffer`.
    func bodyToSend(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
      guard let upload else { return 0 }
      guard let count = upload.read(into: buffer) else { return Curl.abortRead }
      if count > 0 { lastActivity = .now }
      return count
    }

    /// libcurl's progress figures: request body bytes sent.
    func progressed(uploaded: Int64, of total: Int64) {
      guard uploaded > sent else { return }
      sent = uploaded
      lastActivity = .now
      options.progress?(.sent(uploaded, of: total > 0 ? total : nil))
    }

    /// Records a failure a callback decided, for the transfer's end; returns false, for
    /// callbacks to hand libcurl.
    private func fail(_ error: HTTPError) -> Bool {
      if failure == nil { failure = error }
      return false
    }

    // MARK: - The end (the driver's thread)

    /// libcurl finished the transfer with `code` (the handle is out of the multi handle).
    func finished(code: Int32) {
      reportTimings()
      var outcome: HTTPError? = failure
      if outcome == nil && code != 0 { outcome = HTTPError(curlCode: code, url: url) }
      if outcome == nil && head == nil { outcome = .transport(URLError(.badServerResponse)) }
      switch sink {
      case .stream(let writer):
        if let outcome { writer.fail(outcome) } else { writer.finish() }
        if let outcome { answer(.failure(outcome)) }
        phase.withLock { $0 = .finished }
      case .file(let file, let handle):
        try? handle.close()
        if let outcome {
          try? FileManager.default.removeItem(at: file)
          answer(.failure(outcome))
        } else if let head {
          options.progress?(.received(received, of: received))
          answer(.success(TransportResponse(head: head, body: ResponseBody(file: file))))
        }
      case .collect, nil:
        if let outcome {
          answer(.failure(outcome))
        } else if let head {
          answer(.success(TransportResponse(head: head, body: ResponseBody(collected))))
        }
      }
      collected = Data()
      release()
    }

    /// The driver stopped the transfer before libcurl finished it (the caller has its
    /// answer already): whatever was written is deleted.
    func abandoned() {
      if case .file(let file, let handle) = sink {
        try? handle.close()
        try? FileManager.default.removeItem(at: file)
      }
      release()
    }

    private func reportTimings() {
      guard let timings = options.timings, let easy else { return }
      func seconds(_ info: Int32) -> Duration? {
        var microseconds: Int64 = 0
        guard courier_curl_easy_getinfo_offset(easy, info, &microseconds) == 0, microseconds > 0
        else { return nil }
        return .microseconds(microseconds)
      }
      var version = 0
      var connects = 0
      _ = courier_curl_easy_getinfo_long(easy, Curl.Info.httpVersion, &version)
      _ = courier_curl_easy_getinfo_long(easy, Curl.Info.numConnects, &connects)
      let lookup = seconds(Curl.Info.nameLookupTime)
      let connected = seconds(Curl.Info.connectTime)
      let secured = seconds(Curl.Info.appConnectTime)
      let protocolName: String? =
        switch version {
        case 1: "http/1.0"
        case 2: "http/1.1"
        case 3: "h2"
        case 30: "h3"
        default: nil
        }
      timings(
        HTTPTimings(
          source: .libcurl, total: seconds(Curl.Info.totalTime) ?? (.now - startedAt),
          domainLookup: connects > 0 ? lookup : nil,
          connect: connects > 0 ? connected.map { $0 - (lookup ?? .zero) } : nil,
          secureConnection: secured.flatMap { secured in
            connected.map { secured - $0 }.flatMap { $0 > .zero ? $0 : nil }
          },
          firstByte: seconds(Curl.Info.startTransferTime), networkProtocol: protocolName,
          reusedConnection: connects == 0))
    }

    /// Frees the handle and what it points at.
    private func release() {
      if let easy { courier_curl_easy_cleanup(easy) }
      easy = nil
      if let headerList { courier_curl_slist_free_all(headerList) }
      headerList = nil
      upload?.close()
      upload = nil
    }
  }

  // libcurl's callbacks: C functions, given the transfer as their user pointer.

  private let curlWrite: courier_curl_data_callback = { buffer, size, count, user in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    return transfer.bodyBytes(UnsafeRawBufferPointer(start: buffer, count: size * count))
  }

  private let curlHeader: courier_curl_data_callback = { buffer, size, count, user in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    return transfer.headerLine(UnsafeRawBufferPointer(start: buffer, count: size * count))
  }

  private let curlRead: courier_curl_data_callback = { buffer, size, count, user in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    return transfer.bodyToSend(UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
  }

  private let curlProgress: courier_curl_progress_callback = { user, _, _, uploadTotal, uploaded in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    transfer.progressed(uploaded: uploaded, of: uploadTotal)
    return 0
  }
#endif
