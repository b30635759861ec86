import Foundation

/// The limits and wishes that come with one request to a transport, as explicit values:
/// only what moving its bytes needs. Policy — redirects, cookies, credentials, the size
/// limit of a body read as a stream, received progress and timings — is ``HTTPClient``'s,
/// above the transport.
///
/// A transport honours each of these itself, as bytes move. The conformance suite in
/// `CourierTesting` checks each of them.
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
  /// The caller reads the whole body into memory before using any of it (a buffered
  /// `send`): the transport collects it, and hands over the head only once the body has
  /// arrived, which saves a suspension per request. It holds at most ``bufferSize`` bytes
  /// of it.
  public var collectsBody: Bool
  /// The most bytes of the response body held in memory. For a collected body
  /// (``collectsBody``), the whole body: a longer one fails with
  /// ``HTTPError/responseTooLarge(limit:)`` and stops the transfer, before the body is read
  /// when `Content-Length` is already over it. For a streamed body, what waits for a reader
  /// that has fallen behind (see ``TransportResponseBody/makeStream(bufferSize:onStop:)``).
  public var bufferSize: Int
  /// Where the transport reports the request body's bytes as they go out: how many so far,
  /// and of how many in all (`nil` when unknown); `nil` for nowhere.
  public var uploadProgress: (@Sendable (_ sent: Int64, _ expected: Int64?) -> Void)?
  /// Where Courier's own transports report what they measured of the exchange (libcurl's
  /// figures, URLSession's task metrics), once, before it ends; `nil` for nowhere. Timings
  /// are the client's: it measures every exchange on its own clock, and prefers these when
  /// a transport gives them. `package`: a transport of your own measures nothing.
  package var timings: (@Sendable (HTTPTimings) -> Void)?
  /// The redirects the client follows (its ``RedirectPolicy``); `.never` outside a client. A
  /// response it follows is handed over with its body as a stream even when the body is
  /// collected (``collects(_:)``): the client reads at most 64 KiB of a redirect's body and
  /// cuts the rest, so a hostile one with a body past the size limit, or without end, is
  /// neither a `responseTooLarge` nor read whole. `package`: a transport of your own collects
  /// it, within ``bufferSize``.
  package var followedRedirects: RedirectPolicy = .never
  /// The statuses whose collected body the caller wants (the endpoint's acceptable ones);
  /// `nil` for every status. An answer of another status is handed over with its body as a
  /// stream even when the body is collected (``collects(_:)``): the client keeps an error
  /// body past the size limit as its start, so the status is not hidden behind a
  /// `responseTooLarge`. `package`: a transport of your own collects it, within ``bufferSize``.
  package var wantedStatuses: StatusCodes?

  /// Options; by default no limits at all, and a streamed body's reader may fall 1 MiB
  /// behind.
  public init(
    deadline: ContinuousClock.Instant? = nil, idleTimeout: Duration? = nil,
    collectsBody: Bool = false, bufferSize: Int = 1 << 20,
    uploadProgress: (@Sendable (_ sent: Int64, _ expected: Int64?) -> Void)? = nil
  ) {
    self.deadline = deadline
    self.idleTimeout = idleTimeout
    self.collectsBody = collectsBody
    self.bufferSize = bufferSize
    self.uploadProgress = uploadProgress
  }
}

extension TransportOptions {
  /// Whether the body of the response `head` is collected (``collectsBody``): not when it is
  /// a redirect the client follows (``followedRedirects``), whose body it drains and cuts, or
  /// of a status not wanted (``wantedStatuses``), whose body it keeps within its own limit.
  package func collects(_ head: HTTPResponse) -> Bool {
    collectsBody && !drains(head)
  }

  /// Whether the client reads only the start of `head`'s body, or all of it within its own
  /// limit: a redirect it follows, an answer of a status not wanted (an interim `1xx` head,
  /// which FoundationNetworking may hand over before the answer, is not one).
  private func drains(_ head: HTTPResponse) -> Bool {
    followedRedirects.follows(head)
      || (head.status >= 200 && wantedStatuses?.contains(head.status) == false)
  }

  /// The most bytes of `head`'s streamed body that wait for its reader: ``bufferSize``, but
  /// for a redirect the client follows and drains, or an answer of a status not wanted, at most a streamed body's default 1 MiB (a
  /// collected exchange's buffer is its size limit, perhaps none, and the transport would
  /// read on into it before the client has cut it).
  package func streamBufferSize(for head: HTTPResponse) -> Int {
    guard drains(head) else { return bufferSize }
    return min(bufferSize, 1 << 20)
  }

  /// These options for a transfer whose body arrives whole: the head waits for it. A body
  /// not collected before has no buffer limit here: its size limit is the caller's, counted
  /// as it is read (URLSession's spooled one is on disk, not in memory).
  package var withoutStreaming: TransportOptions {
    var options = self
    if !collectsBody {
      options.collectsBody = true
      options.bufferSize = .max
    }
    return options
  }
}
