import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends one built request and returns the response: the layer below ``HTTPClient``.
///
/// ``URLSessionTransport`` is the real one; `CourierTesting` ships `StubTransport`. Writing
/// your own takes one method — for example, a transport that answers from memory:
///
/// ```swift
/// struct CannedTransport: HTTPTransport {
///   let body: Data
///   func send(_ request: URLRequest) async throws(HTTPError) -> HTTPResponse {
///     HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body, url: request.url)
///   }
/// }
/// let client = HTTPClient(baseURL: url, transport: CannedTransport(body: json))
/// ```
///
/// A transport must return promptly with ``HTTPError/cancelled`` when the calling task is
/// cancelled, and report failures as ``HTTPError`` (`transport`, `timedOut`, `cancelled`).
/// Status codes are not its business: any response it receives is returned.
///
/// Deadlines come with ``send(_:deadline:)``, whose default implementation races
/// ``send(_:)`` against a sleep and cancels the loser; a transport that can enforce
/// deadlines more cheaply (as ``URLSessionTransport`` does) implements it too.
public protocol HTTPTransport: Sendable {
  /// Sends `request` and returns the whole response.
  func send(_ request: URLRequest) async throws(HTTPError) -> HTTPResponse

  /// Sends `request`, failing with ``HTTPError/timedOut`` if the whole response has not
  /// arrived by `deadline`.
  func send(_ request: URLRequest, deadline: ContinuousClock.Instant) async throws(HTTPError)
    -> HTTPResponse

  /// Sends `request` and hands its upload progress, head and body to `receiver` as they
  /// happen, returning the last head (its body empty) once the body has ended.
  ///
  /// The default implementation sends with ``send(_:)`` and hands over the whole body at
  /// once; ``URLSessionTransport`` streams it.
  func stream(_ request: URLRequest, to receiver: any TransferReceiver) async throws(HTTPError)
    -> HTTPResponse

  /// Sends `request` for a download: as ``stream(_:to:)``, except that the body may be
  /// handed over as a file (``TransferReceiver/received(file:)``) with its progress
  /// reported through ``TransferReceiver/wrote(_:of:)``.
  ///
  /// The default implementation streams; ``URLSessionTransport`` uses a download task, whose
  /// body is written to disk by URLSession itself, so memory stays flat however fast the
  /// network is.
  func download(_ request: URLRequest, to receiver: any TransferReceiver) async throws(HTTPError)
    -> HTTPResponse
}

extension HTTPTransport {
  /// Streams, with ``stream(_:to:)``.
  public func download(_ request: URLRequest, to receiver: any TransferReceiver)
    async throws(HTTPError) -> HTTPResponse
  {
    try await stream(request, to: receiver)
  }

  /// Sends with ``send(_:)``, then reports the whole upload as sent and hands the whole body
  /// to `receiver` in one chunk.
  public func stream(_ request: URLRequest, to receiver: any TransferReceiver)
    async throws(HTTPError) -> HTTPResponse
  {
    try await sendWhole(request, to: receiver)
  }

  /// Sends with ``send(_:)`` and hands the outcome to `receiver` at once.
  func sendWhole(_ request: URLRequest, to receiver: any TransferReceiver)
    async throws(HTTPError) -> HTTPResponse
  {
    var head = try await send(request)
    let body = head.body
    head.body = Data()
    let sent = request.bodyLength
    receiver.sent(sent, of: sent)
    try receiver.received(head: head)
    if !body.isEmpty { try receiver.received(body) }
    return head
  }

  /// Races ``send(_:)`` against the deadline: when time is up, the sending task is
  /// cancelled and the caller gets ``HTTPError/timedOut``.
  public func send(_ request: URLRequest, deadline: ContinuousClock.Instant) async throws(HTTPError)
    -> HTTPResponse
  {
    try await Deadline.run(until: deadline) { () async throws(HTTPError) in
      try await send(request)
    }
  }
}
