// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation
  import FoundationNetworking
  import Glibc

  /// One request on libcurl: its easy handle, set up on the caller's thread and then driven
  /// by the ``CurlDriver`` (under its lock, on whichever thread holds it), whose callbacks
  /// build the head and take the body.
  ///
  /// The caller is answered exactly once, by whichever comes first: the head (streaming),
  /// the whole exchange (collected, or written to a file), a failure, the caller's
  /// cancellation, or a timeout. Cancellation and timeouts answer at once and then have the
  /// driver take the handle out of the multi handle, which closes its connection.
  ///
  /// `@unchecked Sendable`: what the callers' threads and the driver share is `phase`, a
  /// lock-guarded box; everything else is touched under the driver's lock alone once the
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
    let phase = Locked(Phase.idle)

    // Under the driver's lock alone, once submitted:
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutableRawPointer?
    var upload: CurlUpload?
    var status = 0
    var fields: [HTTPHeaders.Field] = []
    var head: HTTPResponse?
    var sink: Sink?
    var collected = Data()
    var received: Int64 = 0
    var expected: Int64?
    var sent: Int64 = 0
    /// A failure a callback decided (over the limit, a malformed head): the transfer's result.
    var failure: HTTPError?
    /// When a byte last moved either way, for the idle timeout.
    var lastActivity: ContinuousClock.Instant
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
    func answer(_ result: Result<TransportResponse, HTTPError>) {
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

    // MARK: - The end (under the driver's lock)

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
          // Part of a body goes to whoever wants it (to resume from), or is deleted. It is
          // handed over off the driver's lock (the receiver may copy it), and before the
          // failure is reported.
          if let partialDownload = options.partialDownload, let head, received > 0 {
            DispatchQueue.global().async {
              partialDownload(head, file)
              self.answer(.failure(outcome))
            }
          } else {
            try? FileManager.default.removeItem(at: file)
            answer(.failure(outcome))
          }
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

    func reportTimings() {
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

    /// Gives the handle back to the driver, for the next transfer, and frees what it points at.
    func release() {
      if let easy { driver.handles.recycle(easy) }
      easy = nil
      if let headerList { courier_curl_slist_free_all(headerList) }
      headerList = nil
      upload?.close()
      upload = nil
    }
  }
#endif
