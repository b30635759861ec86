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
  /// What the transport is given, but for the deadline, known only as the request leaves
  /// (set by ``options(timeout:now:)``): the idle timeout, the size limit, the buffer, and
  /// where progress, timings and a failed download's partial file go.
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
    var collects = false
    if case .collect = use { collects = true }
    transport = TransportOptions(
      idleTimeout: idleTimeout, maximumBytes: maximumBytes, collectsBody: collects,
      bufferSize: bufferSize)
  }

  /// Whether the body is collected into memory.
  var collects: Bool { transport.collectsBody }

  /// The largest body accepted, in bytes, or `nil` for any.
  var maximumBytes: Int? { transport.maximumBytes }

  /// The options a transport gets for this exchange, given the request's timeout (from
  /// `now`).
  func options(timeout: Duration?, now: ContinuousClock.Instant) -> TransportOptions {
    var options = transport
    options.deadline = timeout.map { now + $0 }
    return options
  }

  /// Takes the body of `response` where it goes, and returns the response: with its body
  /// when collected, with the start of it when the status is not acceptable (for the error
  /// it becomes), with none when it went to a file, and with the body still to come in
  /// ``HTTPResponse/bodyStream`` for a reader. `permits` are released once the body has
  /// ended: at once, or, for a reader's, once the reader has read it or let it go (on the
  /// reader's side: a waiting request never starts on a transport's thread, under its lock).
  func take(_ response: TransportResponse, holding permits: RequestLimiter.Permits?)
    async throws(HTTPError) -> HTTPResponse
  {
    var head = response.head
    let body = response.body.limited(to: maximumBytes)
    if case .stream = use, acceptable.contains(head.status) {
      if let permits { body.whenRead { _ in permits.release() } }
      head.bodyStream = body
      return head
    }
    defer { permits?.release() }
    if case .collect = use {
      head.body = try await body.collect()
      head.trailers = body.trailersAfterEnd
    } else if !acceptable.contains(head.status) {
      head.body = try await Self.start(of: body)
    } else if case .download(let file) = use {
      try await file.write(body, head: head)
    }
    return head
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
