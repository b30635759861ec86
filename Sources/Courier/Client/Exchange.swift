import Foundation

/// What one kind of request does with its response, and the limits it runs within: the
/// only thing in which `send`, downloads, uploads and streams differ on their way through
/// ``HTTPClient``'s one pipeline.
struct Exchange: Sendable {
  /// Where the body of an acceptable response goes.
  enum Use: Sendable {
    /// Into memory (`send`, `response`, paging, an upload's answer).
    case collect
    /// Into a file (a download).
    case download(DownloadFile)
    /// To a reader, as it arrives (a byte or event stream): the response carries it in
    /// ``HTTPResponse/bodyStream`` through the middleware to its caller.
    case stream
  }

  /// How much of an unacceptable response's body a download or a stream keeps for its
  /// ``HTTPError/unacceptableStatus(_:)``.
  static let errorBodyLimit = 64 * 1024

  var use: Use
  var timeout: Duration?
  var acceptable: StatusCodes
  /// The largest body accepted, in bytes, or `nil` for any: a `Content-Length` over it
  /// fails before the body is read, and a longer body when it passes the limit.
  var maximumBytes: Int?
  /// Where the bytes of the answer's body are reported as its reader takes them: how many
  /// so far, and of how many (`Content-Length`, when no coding changes it).
  var received: (@Sendable (_ bytes: Int64, _ expected: Int64?) -> Void)?
  /// What the transport is given, but for the deadline, known only as the request leaves
  /// (set by ``options(timeout:now:)``): the idle timeout, the buffer (a collected body's
  /// size limit), and where upload progress and timings go.
  var transport: TransportOptions
  #if Tracing
    /// The request's spans, when the client has a tracer (the `Tracing` trait).
    var tracing: RequestTracing?
  #endif

  init(
    use: Use, timeout: Duration?, idleTimeout: Duration?, maximumBytes: Int?,
    bufferSize: Int = 1 << 20, acceptable: StatusCodes
  ) {
    self.use = use
    self.timeout = timeout
    self.acceptable = acceptable
    self.maximumBytes = maximumBytes
    var collects = false
    if case .collect = use { collects = true }
    // A collected body is held whole in the transport: the size limit is its buffer.
    transport = TransportOptions(
      idleTimeout: idleTimeout, collectsBody: collects,
      bufferSize: collects ? maximumBytes ?? .max : bufferSize)
    transport.wantedStatuses = acceptable
  }

  /// Refuses a `timeout` or `idleTimeout` of zero or less, a negative `maximumBytes` or
  /// `bufferSize`, with ``HTTPError/invalidRequest(reason:)``: no request could meet it, so
  /// none is sent (`nil` is the way to ask for no limit).
  static func check(
    timeout: Duration?, idleTimeout: Duration?, maximumBytes: Int?, bufferSize: Int = 0
  ) throws(HTTPError) {
    if let maximumBytes, maximumBytes < 0 {
      throw .invalidRequest(
        reason: "the response size limit (\(maximumBytes) bytes) is negative; nil sets none")
    }
    if bufferSize < 0 {
      throw .invalidRequest(reason: "the buffer size (\(bufferSize) bytes) is negative")
    }
    if let timeout, timeout <= .zero {
      throw .invalidRequest(reason: "the timeout (\(timeout)) is not positive; nil sets none")
    }
    if let idleTimeout, idleTimeout <= .zero {
      throw .invalidRequest(
        reason: "the idle timeout (\(idleTimeout)) is not positive; nil sets none")
    }
  }

  /// Whether the body is collected into memory.
  var collects: Bool { transport.collectsBody }

  /// The options a transport gets for this exchange, given the request's timeout (from
  /// `now`).
  func options(timeout: Duration?, now: ContinuousClock.Instant) -> TransportOptions {
    var options = transport
    options.deadline = timeout.map { now + $0 }
    return options
  }

  /// The refusal of a `206 Partial Content` to a request that asked for no range — a
  /// server sends one only for a range request (RFC 9110 §15.3.7), so its body is not the
  /// whole answer — or `nil` for any other answer: every download's rule, in the process and
  /// in a system background session alike.
  static func unaskedPartial(_ status: Int, askedForRange: Bool) -> HTTPError? {
    guard status == 206, !askedForRange else { return nil }
    return .transport(
      .badServerResponse,
      reason: "the server answered 206 Partial Content to a request that asked for no range")
  }

  /// Takes the body of `response` (to `request`, as sent) where it goes, within
  /// the size limit (a `Content-Length` over it fails at once), counting what the reader of
  /// an acceptable one takes for ``received``, and returns the response: with its body
  /// when collected, with the start of it when the status is not acceptable (for the error
  /// it becomes; a collected one whole when within the limit), with none when it went to a
  /// file, and with the body still to come in ``HTTPResponse/bodyStream`` for a reader. `permits` are released once the body has
  /// ended: at once, or, for a reader's, once the reader has read it or let it go (on the
  /// reader's side: a waiting request never starts on a transport's thread, under its lock).
  ///
  /// An acceptable `206 Partial Content` to a request without `Range` fails with
  /// ``HTTPError/transport(_:)`` (`badServerResponse`), its body unread: a server sends one
  /// only for a range request (RFC 9110 §15.3.7), so its body is not the whole answer.
  func take(
    _ response: TransportResponse, to request: TransportRequest,
    holding permits: RequestLimiter.Permits?
  ) async throws(HTTPError) -> HTTPResponse {
    var head = response.head
    // The limit is the wanted body's: an error answer's is cut to its start instead (below),
    // so a status the caller acts on is never hidden behind `responseTooLarge`.
    let accepted = acceptable.contains(head.status)
    var body = accepted ? response.body.limited(to: maximumBytes) : response.body
    let expected = head.announcedBodyLength(for: request.method)
    var refusal: HTTPError?
    if accepted, let maximumBytes, let expected, expected > Int64(maximumBytes) {
      refusal = .responseTooLarge(limit: maximumBytes)
    } else if head.status == 206, acceptable.contains(206),
      let partial = Self.unaskedPartial(
        head.status, askedForRange: request.head.value(forHTTPHeaderField: "Range") != nil)
    {
      refusal = partial
    }
    if let refusal {
      body.cancel()
      permits?.release()
      throw refusal
    }
    if let received, !collects, acceptable.contains(head.status) {
      let count = Locked<Int64>(0)
      body = body.mapChunks { chunk in
        let bytes = count.withLock { count in
          count += Int64(chunk.count)
          return count
        }
        received(bytes, expected)
        return chunk
      }
    }
    if case .stream = use, acceptable.contains(head.status) {
      if let permits { body.whenRead { _ in permits.release() } }
      head.bodyStream = body
      return head
    }
    defer { permits?.release() }
    if !accepted, collects {
      let (data, cut) = try await Self.errorBody(body, within: maximumBytes, announced: expected)
      head.body = data
      if cut { head.bodyCutPast = maximumBytes }
    } else if case .collect = use {
      // A body in memory (a transport's collected one) is taken without an async call.
      if let data = try body.inMemory() {
        head.body = data
      } else {
        head.body = try await body.collect()
      }
      head.trailers = body.trailersAfterEnd
    } else if !acceptable.contains(head.status) {
      head.body = try await Self.start(of: body)
    } else if case .download(let file) = use {
      try await file.write(body, head: head)
    }
    return head
  }

  /// A collected answer's error body: whole within `maximumBytes`, as any collected body;
  /// past it (or announced past it), its first ``errorBodyLimit`` bytes, the rest not read
  /// (`cut`).
  private static func errorBody(
    _ body: TransportResponseBody, within maximumBytes: Int?, announced: Int64?
  ) async throws(HTTPError) -> (Data, cut: Bool) {
    guard let maximumBytes else { return (try await body.collect(), false) }
    if let announced, announced > Int64(maximumBytes) { return (try await start(of: body), true) }
    var data = Data()
    for try await chunk in body {
      data.append(chunk)
      if data.count > maximumBytes, data.count >= errorBodyLimit {
        body.cancel()
        break
      }
    }
    // A copy of the start: a slice would keep the whole buffer read so far alive with the
    // error (the Apple reader's point on probe11).
    guard data.count > maximumBytes else { return (data, false) }
    return (data.prefix(errorBodyLimit).withUnsafeBytes { Data($0) }, true)
  }

  /// The first ``errorBodyLimit`` bytes of `body`; the rest is not read.
  private static func start(of body: TransportResponseBody) async throws(HTTPError) -> Data {
    var data = Data()
    for try await chunk in body {
      data.append(chunk.prefix(errorBodyLimit - data.count))
      if data.count >= errorBodyLimit {
        body.cancel()
        break
      }
    }
    return data
  }
}
