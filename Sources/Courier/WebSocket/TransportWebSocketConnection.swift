import Foundation

/// An open WebSocket connection under a ``WebSocket``: whole messages in and out, and the
/// close handshake. Courier's own protocol on a byte channel (``ChannelWebSocket``) is one;
/// `URLSessionWebSocketTask`, on Apple platforms, the other. Not for transports: a transport
/// gets WebSockets by implementing ``HTTPTransport/connect(to:options:)``.
///
/// A connection reads from the network only while it has room: it holds at most
/// ``TransportWebSocketOptions/readAhead`` bytes of messages nobody has received yet, so a caller that
/// stops receiving stops the socket being read and the peer is held back by TCP.
protocol TransportWebSocketConnection: AnyObject, Sendable {
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
  /// Sends a ping without waiting for it: `answered` hears, once, that its pong arrived or
  /// why none will (the connection has ended). What keep-alive sends: no task waits between
  /// a ping and its pong.
  func ping(answered: @escaping @Sendable (Result<Void, HTTPError>) -> Void)
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

/// An accepted upgrade: the server's `101` answer and the connection.
struct TransportWebSocket: Sendable {
  /// The server's answer to the upgrade (status `101` and its headers).
  var response: HTTPResponse
  /// The subprotocol the server chose from those offered, if any.
  var subprotocol: String?
  /// The open connection.
  var connection: any TransportWebSocketConnection
}

/// What an upgrade to a WebSocket asks, beyond its request.
struct TransportWebSocketOptions: Sendable {
  /// The subprotocols offered (`Sec-WebSocket-Protocol`), most preferred first.
  var subprotocols: [String]
  /// The largest message accepted, all its frames together; a larger one closes the
  /// connection with 1009 and fails with ``HTTPError/responseTooLarge(limit:)``. 1 MiB by
  /// default, as `URLSessionWebSocketTask`'s.
  var maximumMessageSize: Int
  /// How many bytes of received messages may wait for a caller before the connection stops
  /// reading the socket, each message's place in the queue counted with its bytes (so that
  /// empty ones count too). 1 MiB by default.
  var readAhead: Int
  /// The handshake's limits: its deadline, the size limit of a refusal's body, and the
  /// names of credential headers.
  var transport: TransportOptions
  /// How long a close frame after which the connection ends may take to go out (the
  /// client's ``WebSocket/Settings/closeTimeout``).
  var closeTimeout: Duration = .seconds(5)
  /// What times the handshake's deadline and the close timeout (on the client's clock);
  /// `nil` for one timer on the continuous clock, shared by every connection.
  var timer: DeadlineTimer?

  /// Options with the given values.
  init(
    subprotocols: [String] = [], maximumMessageSize: Int = 1 << 20, readAhead: Int = 1 << 20,
    transport: TransportOptions = TransportOptions()
  ) {
    self.subprotocols = subprotocols
    self.maximumMessageSize = maximumMessageSize
    self.readAhead = readAhead
    self.transport = transport
  }
}

/// A transport that opens WebSockets its own way rather than over
/// ``HTTPTransport/connect(to:options:)``: `URLSessionTransport`, whose WebSockets are
/// `URLSessionWebSocketTask`s on Apple platforms (and which declines them on Linux).
protocol PlatformWebSocketTransport: HTTPTransport {
  /// Runs the opening handshake of `request` and returns the server's `101` answer with the
  /// open connection; an answer other than `101` is ``HTTPError/unacceptableStatus(_:)``.
  func openPlatformWebSocket(_ request: TransportRequest, options: TransportWebSocketOptions)
    async throws(HTTPError) -> TransportWebSocket
}

extension HTTPTransport {
  /// Opens a WebSocket to the request's URL: the transport's own way, if it has one
  /// (``PlatformWebSocketTransport``); else WebSocket's protocol on a byte channel the
  /// transport connects (``connect(to:options:)``): the upgrade request, the server's answer,
  /// then frames, masking, UTF-8, limits, pings and the close handshake. `ws` and `wss` URLs
  /// are read as `http` and `https`. A transport that cannot connect fails here as it fails
  /// there.
  func openWebSocket(_ request: TransportRequest, options: TransportWebSocketOptions)
    async throws(HTTPError) -> TransportWebSocket
  {
    if let platform = self as? any PlatformWebSocketTransport {
      return try await platform.openPlatformWebSocket(request, options: options)
    }
    return try await ChannelWebSocket.open(request, options: options) {
      (url: URL, options: TransportOptions) async throws(HTTPError) -> any TransportByteChannel in
      try await connect(to: url, options: options)
    }
  }
}
