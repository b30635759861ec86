import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends one request and answers with the response head and its body as a stream: the only
/// way anything reaches the network. Every kind of request ``HTTPClient`` makes — `send`,
/// paging, downloads, uploads, byte and event streams — goes through this one method; a
/// buffered call is the stream collected.
///
/// ``URLSessionTransport`` is the default; `CourierTesting` ships `StubTransport`. A
/// transport of your own often wraps another — for example, one that records what it sends:
///
/// ```swift
/// struct RecordingTransport: HTTPTransport {
///   let base: any HTTPTransport
///   let log: @Sendable (String) -> Void
///
///   func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
///     -> TransportResponse
///   {
///     log("\(request.method.rawValue) \(request.head.url?.path ?? "")")
///     return try await base.send(request, options: options)
///   }
/// }
/// ```
///
/// What a transport must do (`TransportConformance` in `CourierTesting` checks each):
/// - Return once the head has arrived (or, when ``TransportOptions/collectsBody`` is set,
///   once the whole body has), with the body as a ``TransportResponseBody``: in memory, or
///   streamed through ``TransportResponseBody/makeStream(bufferSize:onStop:)`` and stopped when
///   its reader stops. Files are the client's: it writes every download itself.
/// - Honour every limit in ``TransportOptions`` as bytes move: the deadline and the idle
///   timeout (``HTTPError/timedOut``), a collected body's buffer
///   (``HTTPError/responseTooLarge(limit:)``, before the body when `Content-Length` is over
///   it), and report the request body's progress. A streamed body's size limit and its
///   received progress are the client's: it counts what its reader takes.
/// - Hand back every response as it came, a redirect included: redirects, cookies and the
///   credential rule are ``HTTPClient``'s, which follows a redirect by sending the next
///   request through the transport.
/// - Answer cancellation of the calling task at once with ``HTTPError/cancelled``, closing
///   the connection, also while the body is read.
/// - Report every failure as an ``HTTPError``; statuses are not its business: any response
///   it receives is returned.
/// - Resume its caller outside any lock of its own: the caller may go on at once on the
///   thread that resumes it, into the next request.
public protocol HTTPTransport: Sendable {
  /// Sends `request` within `options`' limits and returns the response head and body.
  func send(_ request: TransportRequest, options: TransportOptions) async throws(HTTPError)
    -> TransportResponse

  /// Opens a connection to `url`'s host and port — TCP, with TLS for `https` and `wss`,
  /// through the transport's proxy, identity and trust — and nothing else: no request is
  /// sent. `options.deadline` bounds the connecting; cancelling the calling task ends it
  /// with ``HTTPError/cancelled``. A transport that cannot connect throws
  /// ``HTTPError/invalidRequest(reason:)`` saying so, which is what the default
  /// implementation does.
  ///
  /// A transport that connects gets WebSockets without a line of WebSocket code:
  /// ``HTTPClient/webSocket(_:subprotocols:settings:reconnection:)`` runs the whole protocol
  /// on the channel (the upgrade, framing, masking, UTF-8, limits, pings and the close
  /// handshake). One that cannot connect declines them as its `connect` does, but for
  /// ``URLSessionTransport``: as a client's own transport it opens them with
  /// `URLSessionWebSocketTask` on Apple platforms, and its `connect` always declines.
  func connect(to url: URL, options: TransportOptions) async throws(HTTPError)
    -> any TransportByteChannel
}

extension HTTPTransport {
  /// Sends `request` (its body, if any, in `httpBody`) and collects the whole response,
  /// within `options`' limits: one buffered exchange, for tests and one-off calls that need
  /// no client. A redirect is the answer here; ``HTTPClient`` follows redirects. The body
  /// may be of any size, unless `options` collect it (``TransportOptions/collectsBody``):
  /// then ``TransportOptions/bufferSize`` is its limit.
  ///
  /// ```swift
  /// let response = try await URLSessionTransport().send(URLRequest(url: healthURL))
  /// print(response.status, response.text ?? "")
  /// ```
  public func send(_ request: URLRequest, options: TransportOptions = TransportOptions())
    async throws(HTTPError) -> HTTPResponse
  {
    let response = try await send(
      TransportRequest(head: request), options: options.withoutStreaming)
    var whole = response.head
    whole.body = try await response.body.collect()
    return whole
  }
}
