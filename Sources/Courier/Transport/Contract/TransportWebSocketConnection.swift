import Foundation

/// A WebSocket connection a transport opened: whole messages in and out, and the close
/// handshake. ``WebSocket`` is what callers use; this is what a transport provides
/// (``HTTPTransport/openWebSocket(_:options:)``).
///
/// A connection reads from the network only while it has room: it holds at most
/// ``TransportWebSocketOptions/readAhead`` bytes of messages nobody has received yet, so a caller that
/// stops receiving stops the socket being read and the peer is held back by TCP.
public protocol TransportWebSocketConnection: AnyObject, Sendable {
  /// Sends one message, whole; returns once it is on its way — queued behind a bounded
  /// amount (a transport's choice; `CurlTransport`'s is 256 KiB) or written — or fails once
  /// the connection has ended. Cancelling the sending task ends the connection, as a message
  /// half sent cannot be taken back.
  func send(_ message: WebSocketMessage) async throws(HTTPError)
  /// The next message; `nil` once the peer's close frame has arrived and the answering close
  /// frame has been written (``peerClosure`` then says why), so that a caller may let go of
  /// the connection as soon as it sees the end. Throws when the connection failed: a protocol
  /// error (after the close frame that says so is written), a message over the limit, a
  /// connection that ended without a close frame. Only one caller may wait at a time.
  func receive() async throws(HTTPError) -> WebSocketMessage?
  /// Sends a ping and returns when the pong answering it arrives. Cancelling the waiting
  /// task stops the wait, not the connection.
  func ping() async throws(HTTPError)
  /// Sends a close frame with `code` and `reason` unless one was sent already, and returns
  /// once the peer has answered with its own, or the connection has ended. Messages that
  /// arrive meanwhile are dropped.
  func close(_ code: WebSocketCloseCode, reason: String) async
  /// Ends the connection at once, without a close handshake; waiting calls fail with
  /// ``HTTPError/cancelled``. Once the peer has closed, the answering close frame still goes
  /// out first (within the client's close timeout).
  func cancel()
  /// The peer's close frame, once it has arrived.
  var peerClosure: WebSocketClosure? { get }
}

/// A close frame's code and reason.
public struct WebSocketClosure: Sendable, Hashable {
  /// The code; ``WebSocketCloseCode/noStatusReceived`` when the frame carried none.
  public var code: WebSocketCloseCode
  /// The reason the frame gave (empty when none).
  public var reason: String

  /// A closure with `code` and `reason`.
  public init(code: WebSocketCloseCode, reason: String = "") {
    self.code = code
    self.reason = reason
  }
}

/// What a transport answers an upgrade with: the server's `101` answer and the connection.
public struct TransportWebSocket: Sendable {
  /// The server's answer to the upgrade (status `101` and its headers).
  public var response: HTTPResponse
  /// The subprotocol the server chose from those offered, if any.
  public var subprotocol: String?
  /// The open connection.
  public var connection: any TransportWebSocketConnection

  /// An upgraded connection, e.g. from a transport of your own.
  public init(
    response: HTTPResponse, subprotocol: String?, connection: any TransportWebSocketConnection
  ) {
    self.response = response
    self.subprotocol = subprotocol
    self.connection = connection
  }
}

/// What an upgrade to a WebSocket asks of the transport, beyond its request.
public struct TransportWebSocketOptions: Sendable {
  /// The subprotocols offered (`Sec-WebSocket-Protocol`), most preferred first.
  public var subprotocols: [String]
  /// The largest message accepted, all its frames together; a larger one closes the
  /// connection with 1009 and fails with ``HTTPError/responseTooLarge(limit:)``. 1 MiB by
  /// default, as `URLSessionWebSocketTask`'s.
  public var maximumMessageSize: Int
  /// How many bytes of received messages may wait for a caller before the connection stops
  /// reading the socket. 1 MiB by default.
  public var readAhead: Int
  /// The handshake's limits: its deadline, the size limit of a refusal's body, and the
  /// names of credential headers.
  public var transport: TransportOptions
  /// How long a close frame after which the connection ends may take to go out (the
  /// client's ``WebSocket/Settings/closeTimeout``).
  var closeTimeout: Duration = .seconds(5)
  /// What times the handshake's deadline and the close timeout (on the client's clock);
  /// `nil` for one timer on the continuous clock, shared by every connection.
  var timer: DeadlineTimer?

  /// Options with the given values.
  public init(
    subprotocols: [String] = [], maximumMessageSize: Int = 1 << 20, readAhead: Int = 1 << 20,
    transport: TransportOptions = TransportOptions()
  ) {
    self.subprotocols = subprotocols
    self.maximumMessageSize = maximumMessageSize
    self.readAhead = readAhead
    self.transport = transport
  }
}

extension HTTPTransport {
  /// Connects a byte channel to the request's URL (``connect(to:options:)``) and runs
  /// WebSocket's protocol on it: the upgrade request, the server's answer, then frames,
  /// masking, UTF-8, limits, pings and the close handshake. `ws` and `wss` URLs are read as
  /// `http` and `https`. A transport that cannot connect fails here as it fails there.
  public func openWebSocket(_ request: TransportRequest, options: TransportWebSocketOptions)
    async throws(HTTPError) -> TransportWebSocket
  {
    try await ChannelWebSocket.open(request, options: options) {
      (url: URL, options: TransportOptions) async throws(HTTPError) -> any TransportByteChannel in
      try await connect(to: url, options: options)
    }
  }
}
