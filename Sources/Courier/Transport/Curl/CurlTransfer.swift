// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import CCourierCurl
  import Foundation
  import FoundationNetworking
  import Glibc
  import Synchronization

  /// One request on libcurl: its easy handle, set up on the caller's thread and then driven
  /// by the ``CurlDriver`` (under its lock, on whichever thread holds it), whose callbacks
  /// build the head and take the body. Its ``TransportCall`` answers the caller; an exchange
  /// that ends early has the driver take the handle out, which closes its connection.
  ///
  /// `@unchecked Sendable`: what the callers' threads and the driver share is `call`, whose
  /// state is lock-guarded; everything else is touched under the driver's lock alone once the
  /// transfer is submitted (and by the submitting thread alone before).
  final class CurlTransfer: @unchecked Sendable {
    /// The transfer as its exchange starts and stops it: handed to the driver, taken out of
    /// it (which closes its connection), or given back unsent.
    struct Handle: ExchangeTransfer {
      let transfer: CurlTransfer
      func begin() { transfer.driver.add(transfer) }
      func stop() { transfer.driver.remove(transfer) }
      func discard() { transfer.release() }
      var lastActivity: ContinuousClock.Instant? { transfer.lastActivity }
    }

    /// Where the body of the response goes.
    enum Sink {
      /// Into memory, handed over with the head at the end (a buffered send).
      case collect
      /// To the caller as it arrives, pausing the transfer when the reader falls behind.
      case stream(TransportResponseBody.Writer)
    }

    let request: TransportRequest
    let options: TransportOptions
    let url: URL
    let driver: CurlDriver
    /// What the transfer's connection is made with (kept for the lists libcurl reads).
    var settings: CurlTransport.Settings?
    /// The exchange: its state machine and deadlines.
    let call: TransportCall<Handle>

    // Under the driver's lock alone, once submitted:
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutableRawPointer?
    /// Where libcurl writes what went wrong (`CURLOPT_ERRORBUFFER`), in more words than its
    /// code: the only way to tell a malformed chunked body from a connection that failed.
    var errorText: UnsafeMutablePointer<CChar>?
    var upload: CurlUpload?
    var headReader = ResponseHeadReader()
    /// The trailer fields after the body.
    var trailers: [HTTPHeaders.Field] = []
    var head: HTTPResponse?
    /// The bytes of head lines libcurl handed over before the final head (interim heads
    /// too): what its limit on a head counts (``HTTPError/oversizedHead(curlCode:bytes:url:)``).
    var headBytes = 0
    var sink: Sink?
    var collected = Data()
    var received: Int64 = 0
    var expected: Int64?
    var sent: Int64 = 0
    /// A failure a callback decided (over the limit, a malformed head): the transfer's result.
    var failure: HTTPError?
    /// Whether the reader's buffer is full and receiving paused until it drains.
    var pausedForReader = false
    /// Whether a streamed body had nothing to send and sending paused until it has.
    var pausedForBody = false
    /// Whether the request body has all been handed to libcurl.
    var bodySent = false
    /// How many times the request was about to go out on a connection (see `aboutToSend()`).
    var sendings = 0
    /// Whether libcurl undoes the response's content coding (the request asked for codings).
    var decodesContent = true
    /// A chunked response read raw (the request's body is a stream): its chunks are undone
    /// here, to know where it ends while the body is still being sent.
    var chunks: ChunkedDecoder?
    let startedAt: ContinuousClock.Instant
    /// When a byte last moved, in nanoseconds after `madeAt` on the exchange's clock (0: none
    /// yet): recorded by the callbacks without the exchange's lock, read by its timer.
    private let activity = Atomic<Int64>(0)
    private let clock: any TransportClock
    private let madeAt: ContinuousClock.Instant
    /// Whether the driver was told to take the transfer out before it had put it in (the
    /// exchange ended first): then it is not put in. Under the driver's lock.
    var removedEarly = false

    /// The token of the transfer's deadline among the driver's, while it is in the multi
    /// handle. Under the driver's lock.
    var deadline: UInt64?

    /// A transfer whose deadline and idle timeout the driver keeps (see
    /// ``CurlDriver/keepDeadline(of:)``): under the lock it takes anyway to add the transfer
    /// and to finish it, instead of a timer's lock taken twice more.
    init(request: TransportRequest, url: URL, options: TransportOptions, driver: CurlDriver) {
      self.request = request
      self.url = url
      self.options = options
      self.driver = driver
      let clock = ContinuousClock()
      call = TransportCall(options: options, clock: clock) { driver.outsideLock($0) }
      startedAt = .now
      self.clock = clock
      madeAt = clock.now
    }

    // MARK: - The caller's side

    /// Ends the exchange now with `error` (cancelled, timed out, stopped by the reader),
    /// unless it has ended, and has the driver stop the transfer.
    func end(with error: HTTPError) {
      call.end(with: error)
    }

    // MARK: - Activity (the driver's thread)

    /// A byte moved, for the idle timeout: recorded here rather than under the exchange's
    /// lock at each callback (a GET's head alone is a dozen), and read when its timer looks.
    func moved() {
      guard call.watchesActivity else { return }
      let (seconds, attoseconds) = (clock.now - madeAt).components
      let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
      activity.store(max(1, nanoseconds), ordering: .releasing)
    }

    /// When a byte last moved, if one has.
    var lastActivity: ContinuousClock.Instant? {
      let nanoseconds = activity.load(ordering: .acquiring)
      return nanoseconds == 0 ? nil : madeAt + .nanoseconds(nanoseconds)
    }

    // MARK: - The end (under the driver's lock)

    /// libcurl finished the transfer with `code` (the handle is out of the multi handle).
    func finished(code: Int32) {
      reportTimings()
      let detail = code == 0 ? nil : errorText.map { String(cString: $0) }
      let refused = HTTPError.routeRefused(by: easy, code: code, url: url)
      // The handle goes back and the upload's file is closed before the caller is answered,
      // so that it finds nothing of the exchange left.
      release(recycling: code == 0)
      var outcome = failure
      if outcome == nil, code != 0 {
        let oversized =
          head == nil ? HTTPError.oversizedHead(curlCode: code, bytes: headBytes, url: url) : nil
        outcome =
          refused ?? oversized
          ?? HTTPError.malformedChunks(curlCode: code, detail: detail, url: url)
          ?? HTTPError(
            curlCode: code, url: url, offline: settings?.offline ?? .system, detail: detail)
      }
      let body = collected
      collected = Data()
      guard let head, outcome == nil else {
        return call.complete(.failure(outcome ?? .transport(URLError(.badServerResponse))))
      }
      // A streamed body's caller has the head already: this ends the body.
      let trailers = HTTPHeaders(self.trailers)
      if case .stream(let writer) = sink, !trailers.isEmpty { writer.buffer.trailers = trailers }
      call.complete(
        .success(
          TransportResponse(head: head, body: TransportResponseBody(body, trailers: trailers))))
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
    /// A handle whose transfer was taken out of the multi handle before its end, or that
    /// failed, is freed instead (`recycling` false): libcurl 7.88 went on handing an HTTP/2
    /// stream's data to the handle of a transfer taken out mid-body, so a request given that
    /// handle next received another request's body inside its own.
    func release(recycling: Bool = true) {
      if let easy = easy.take() {
        if recycling { driver.handles.recycle(easy) } else { courier_curl_easy_cleanup(easy) }
      }
      if let headerList = headerList.take() { courier_curl_slist_free_all(headerList) }
      errorText.take()?.deallocate()
      upload.take()?.close()
    }
  }
#endif
