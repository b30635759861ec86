/// Limits for one download, upload or stream, in place of the client's per-request ones.
///
/// ```swift
/// let options = TransferOptions(timeout: .seconds(600), maximumBytes: 2 << 30)
/// let file = try await client.download(MovieApi.trailer(id: 42), to: url, options: options)
///   .finished()
/// ```
public struct TransferOptions: Sendable {
  /// How long the whole transfer may take, from the moment it has passed the middleware and
  /// holds its permits until the last byte (as ``HTTPClient/Configuration/timeout``); `nil` (the
  /// default) for no deadline: a large download or an event stream may rightly take hours.
  /// The idle timeout still ends a transfer that stops moving (see ``idleTimeout``). Zero or
  /// less, here or in ``idleTimeout``, fails the transfer with
  /// ``HTTPError/invalidRequest(reason:)`` before anything is sent.
  public var timeout: Duration?
  /// How long the transfer may go without a byte moving either way before it ends with
  /// ``HTTPError/timedOut``; `nil` (the default) for the client's
  /// ``HTTPClient/Configuration/idleTimeout`` (60 seconds unless configured). An event
  /// stream reconnects after it as after a dropped connection.
  public var idleTimeout: Duration?
  /// The largest body accepted, in bytes; `nil` for no limit (a negative one is an
  /// ``HTTPError/invalidRequest(reason:)``, and nothing is sent). A `Content-Length` over it
  /// fails with ``HTTPError/responseTooLarge(limit:)`` before the body is read, and a longer
  /// body is cut off at the limit as it arrives: a stream's transfer stops as soon as more has
  /// come than the limit, read or not, and its reader gets the error after the bytes before
  /// it. It holds the body asked for: an answer whose status the endpoint does not accept
  /// is ``HTTPError/unacceptableStatus(_:)`` with the start of its body, whatever its length.
  /// Downloads and streams default to no limit (their bodies never sit in memory whole);
  /// uploads default to the client's
  /// ``HTTPClient/Configuration/maximumResponseBytes``, since their answer is kept in memory.
  public var maximumBytes: Int?
  /// For ``HTTPClient/bytes(_:options:)`` and ``HTTPClient/events(_:reconnection:options:)``:
  /// the most bytes held in memory for a reader that has fallen behind; 1 MiB by default.
  /// Past it, bytes wait in a temporary file until read (see ``ByteStream``). A negative
  /// size fails the transfer with ``HTTPError/invalidRequest(reason:)``, and nothing is sent.
  public var bufferSize: Int
  /// For downloads: how many times a download whose connection dropped part-way continues
  /// where it stopped, with `Range` and `If-Range`, when the response carried a validator
  /// (a strong `ETag` or `Last-Modified`); 3 by default, 0 for never. A cancelled download
  /// is never continued. Each continuation is a request of its own to the middleware and
  /// the observer. A negative number fails the download with
  /// ``HTTPError/invalidRequest(reason:)``, and nothing is sent.
  public var maximumResumeAttempts: Int
  /// For downloads: receives the ``DownloadResumeData`` of a download that failed or was
  /// cancelled after part of its body reached the disk, and keeps its partial file for
  /// ``HTTPClient/download(_:to:resumingFrom:options:)``; `nil` (the default) keeps
  /// nothing. Called before the download throws, and only when there is something to
  /// resume (bytes and a validator), on every transport.
  public var resumeData: (@Sendable (DownloadResumeData) -> Void)?

  /// Options with the given limits.
  public init(
    timeout: Duration? = nil, idleTimeout: Duration? = nil, maximumBytes: Int? = nil,
    bufferSize: Int = 1 << 20, maximumResumeAttempts: Int = 3,
    resumeData: (@Sendable (DownloadResumeData) -> Void)? = nil
  ) {
    self.maximumResumeAttempts = maximumResumeAttempts
    self.resumeData = resumeData
    self.timeout = timeout
    self.idleTimeout = idleTimeout
    self.maximumBytes = maximumBytes
    self.bufferSize = bufferSize
  }
}
