import Foundation

/// The limits and wishes that come with one request to a transport, as explicit values:
/// only what moving its bytes needs. Policy — redirects, cookies, credentials — is
/// ``HTTPClient``'s, above the transport.
///
/// A transport honours every limit itself, as bytes move: ``HTTPClient`` checks the size
/// limit again as it reads the body, but it relies on the transport for deadlines and idle
/// timeouts. The conformance suite in `CourierTesting` checks each of them.
public struct TransportOptions: Sendable {
  /// When the whole exchange, head and body, must have ended; past it the exchange fails
  /// with ``HTTPError/timedOut`` and the transfer stops. `nil` for no deadline.
  public var deadline: ContinuousClock.Instant?
  /// How long the transfer may go without a byte moving either way before it fails with
  /// ``HTTPError/timedOut``; `nil` for no limit. The idle period starts when the exchange
  /// starts, so it also bounds the wait for the response head (a server that takes longer
  /// than this to answer times out); while a streamed body's reader has fallen behind and
  /// the transfer is paused for it, the transfer is not idle.
  public var idleTimeout: Duration?
  /// The largest response body accepted, in bytes (decoded bytes, after gzip); `nil` for
  /// any. A `Content-Length` over it fails with ``HTTPError/responseTooLarge(limit:)``
  /// before the body is read, and a longer body is cut off when it passes the limit.
  public var maximumBytes: Int?
  /// Where the transport reports bytes sent and received as they move; `nil` for nowhere.
  public var progress: (@Sendable (TransportProgress) -> Void)?
  /// The caller reads the whole body into memory before using any of it (a buffered
  /// `send`): a transport may hand over the head only once the body has arrived, which
  /// saves a suspension per request.
  public var collectsBody: Bool
  /// For a streamed body: the most bytes held in memory for a reader that has fallen
  /// behind (see ``TransportResponseBody/makeStream(bufferSize:onStop:)``).
  public var bufferSize: Int
  /// Where the transport reports how long the exchange took, once, when it ends (a
  /// redirect the client follows is a new exchange); `nil` for nowhere. A
  /// transport that measures nothing never calls it.
  public var timings: (@Sendable (HTTPTimings) -> Void)?

  /// Options; by default no limits at all.
  public init(
    deadline: ContinuousClock.Instant? = nil, idleTimeout: Duration? = nil,
    maximumBytes: Int? = nil, progress: (@Sendable (TransportProgress) -> Void)? = nil,
    collectsBody: Bool = false, bufferSize: Int = 1 << 20,
    timings: (@Sendable (HTTPTimings) -> Void)? = nil
  ) {
    self.timings = timings
    self.deadline = deadline
    self.idleTimeout = idleTimeout
    self.maximumBytes = maximumBytes
    self.progress = progress
    self.collectsBody = collectsBody
    self.bufferSize = bufferSize
  }
}

/// Bytes that have moved, as a transport reports them to ``TransportOptions/progress``.
public enum TransportProgress: Sendable, Equatable {
  /// `bytes` of the request body have been sent, of `expected` in all (`nil` when unknown).
  case sent(Int64, of: Int64?)
  /// `bytes` of the response body have been received, of `expected` in all (`nil` when
  /// unknown); a new response (after a redirect) counts from zero again.
  case received(Int64, of: Int64?)
}
