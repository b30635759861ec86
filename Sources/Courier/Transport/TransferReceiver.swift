import Foundation

/// What a streamed exchange reports to as it happens: upload progress, the response head,
/// and the body a chunk at a time. ``HTTPTransport/stream(_:to:)`` calls it; ``HTTPClient``'s
/// downloads, uploads, ``HTTPClient/bytes(_:options:)`` and
/// ``HTTPClient/events(_:reconnection:)`` are built on it.
///
/// A transport calls it from one thread at a time, in order. A head may come more than
/// once, when a redirect or a retry starts the exchange again: each head starts a new body.
/// Throwing from ``received(head:)`` or ``received(_:)`` ends the exchange with that error
/// and cancels the transfer.
public protocol TransferReceiver: Sendable {
  /// `bytes` of the request body have been sent so far, of `expected` in all (`nil` when
  /// unknown).
  func sent(_ bytes: Int64, of expected: Int64?)

  /// The response head (status, headers, URL; an empty body) arrived.
  func received(head: HTTPResponse) throws(HTTPError)

  /// The next bytes of the body arrived.
  func received(_ chunk: Data) throws(HTTPError)
}
