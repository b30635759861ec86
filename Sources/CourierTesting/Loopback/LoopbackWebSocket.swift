import Courier
import Foundation

/// The server's side of a WebSocket connection (RFC 6455) that a ``LoopbackServer`` handler
/// accepted with ``LoopbackResponse/upgradeToWebSocket(subprotocol:headers:)``: frames and
/// messages to and from the client over the real socket, well-formed or not.
///
/// ```swift
/// let server = try LoopbackServer { request, response in
///   let socket = try await response.upgradeToWebSocket()
///   try await socket.send(.text("welcome"))
///   try await socket.echoUntilClosed()
/// }
/// ```
///
/// The connection stays upgraded while the handler runs; when the handler returns, it is
/// closed (after what was sent), and the socket's sends throw from then on. Frames the
/// client sends wait in the server, up to 1 MiB, until read with ``receiveFrame()`` or
/// ``receiveMessage()``; past that the server stops reading the connection, and TCP holds
/// the client back. Sends are unmasked unless a ``Frame`` asks otherwise, and go out whole,
/// one at a time. Read from one task at a time.
public final class LoopbackWebSocket: Sendable {
  private struct State: Sendable {
    var closeFrame: CloseFrame?
    /// The opcode and payload so far of a fragmented message being received.
    var fragments: (opcode: UInt8, payload: Data)?
  }

  /// What the client sends, as the reading thread receives it.
  let feed: LoopbackWebSocketFeed
  private let connection: LoopbackConnection
  private let state = Locked(State())
  /// Held across each send, so frames never interleave; `true` once the handler has returned.
  private let sending = Locked(false)

  /// A socket on `connection`, whose client's bytes so far (after the request head) are
  /// `buffered`.
  init(connection: LoopbackConnection, buffered: [UInt8]) {
    self.connection = connection
    feed = LoopbackWebSocketFeed(buffered: buffered)
  }

  // MARK: - Sending

  /// Sends `message` as one final, unmasked text or binary frame.
  public func send(_ message: WebSocketMessage) async throws {
    switch message {
    case .text(let text): try await send(Frame.text(text))
    case .binary(let data): try await send(Frame.binary(data))
    }
  }

  /// Sends `frame` exactly as described, even when no server should: an undefined opcode,
  /// reserved bits, a fragmented or oversized control frame, a mask.
  public func send(_ frame: Frame) async throws {
    try await sendRaw(frame.encoded)
  }

  /// Sends `bytes` exactly as given: half a frame, or anything that is not one.
  public func sendRaw(_ bytes: Data) async throws {
    try await LoopbackResponse.aside { [sending, connection] in
      try sending.withLock { handlerReturned in
        guard !handlerReturned else {
          throw LoopbackError("the WebSocket's handler has returned, and its connection closed")
        }
        try connection.send(bytes)
      }
    }
  }

  /// Sends a close frame with `code` and `reason` (cut to fit 125 bytes), or an empty one
  /// when `code` is nil. The connection stays open: read the client's answer, then return
  /// from the handler or call ``closeConnection()``.
  public func close(code: WebSocketCloseCode? = .normalClosure, reason: String = "") async throws {
    try await send(.close(code: code, reason: reason))
  }

  // MARK: - Receiving

  /// The next frame from the client, or `nil` once the client has closed the connection (or
  /// it was closed). Its payload is unmasked, and its ``Frame/isMasked`` true (the mask was
  /// there). A close frame is also kept as ``closeFrame``.
  ///
  /// Throws a `LoopbackError` for a frame a client may not send (unmasked, with reserved
  /// bits, an undefined opcode, a fragmented or oversized control frame, or a payload over
  /// 64 MiB), again on every later call; `CancellationError` when the task is cancelled.
  public func receiveFrame() async throws -> Frame? {
    guard let frame = try await feed.next() else { return nil }
    if frame.opcode == .close {
      state.withLock { $0.closeFrame = CloseFrame(payload: Data(frame.payload)) }
    }
    return Frame(frame, isMasked: true)
  }

  /// The next whole message from the client, its fragments joined; `nil` when a close frame
  /// arrives (kept as ``closeFrame``) or the connection ends. Pings on the way are answered
  /// with pongs carrying the same payload; pongs are skipped.
  ///
  /// Throws a `LoopbackError` for a bad frame (as ``receiveFrame()`` does), a fragment
  /// out of order, or a text message that is not UTF-8.
  public func receiveMessage() async throws -> WebSocketMessage? {
    while let frame = try await receiveFrame() {
      switch WebSocketFrame.Opcode(rawValue: frame.opcode) {
      case .ping:
        try await send(.pong(frame.payload))
      case .close:
        return nil
      case .text, .binary:
        guard state.withLock({ $0.fragments }) == nil else {
          throw LoopbackError("a new message began before the fragmented one had ended")
        }
        if frame.fin { return try Self.message(opcode: frame.opcode, payload: frame.payload) }
        state.withLock { $0.fragments = (frame.opcode, frame.payload) }
      case .continuation:
        let whole = try state.withLock { state throws -> (opcode: UInt8, payload: Data)? in
          guard var fragments = state.fragments else {
            throw LoopbackError("a continuation frame came with no message to continue")
          }
          fragments.payload.append(frame.payload)
          state.fragments = frame.fin ? nil : fragments
          return frame.fin ? fragments : nil
        }
        if let whole { return try Self.message(opcode: whole.opcode, payload: whole.payload) }
      default:
        continue  // a pong (the reader lets through no other opcode)
      }
    }
    return nil
  }

  /// The close frame the client sent, once ``receiveFrame()`` or ``receiveMessage()`` has
  /// read it.
  public var closeFrame: CloseFrame? {
    state.withLock { $0.closeFrame }
  }

  // MARK: - The connection

  /// Closes the TCP connection at once, without a close frame.
  public func closeConnection() {
    connection.close(gracefully: false)
  }

  /// Returns once the client has closed the TCP connection (or it was closed), or when the
  /// calling task is cancelled. The server notices only as it reads, so not while 1 MiB
  /// sent by the client waits unread.
  public func clientClosedConnection() async {
    await connection.peerClosed()
  }

  /// Echoes every message back until the client's close frame, answers that with a close
  /// frame of the same code, and closes the TCP connection (after what was sent). Returns
  /// when the connection ended without a close frame, or the client closed it without
  /// waiting for the answer.
  public func echoUntilClosed() async throws {
    while let message = try await receiveMessage() {
      try await send(message)
    }
    guard let closeFrame else { return }
    do {
      try await close(code: closeFrame.code)
    } catch {
      guard connection.isPeerClosed else { throw error }
      return  // the client did not wait for the answer
    }
    connection.close(gracefully: true)
  }

  // MARK: - Internal

  /// The handler has returned and the connection is being closed: sends in progress end,
  /// later ones throw, and what the client still sends is dropped.
  func handlerReturned() {
    sending.withLock { $0 = true }
    feed.abandon()
  }

  private static func message(opcode: UInt8, payload: Data) throws -> WebSocketMessage {
    guard opcode == WebSocketFrame.Opcode.text.rawValue else { return .binary(payload) }
    guard let text = UTF8Validator.string(payload) else {
      throw LoopbackError("a text message is not UTF-8")
    }
    return .text(text)
  }
}
