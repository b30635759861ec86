import CCourierCurl
import Foundation

/// The rules of a connection's state that callers and the engine's reading and writing share:
/// when nothing more may be sent, what a receiver gets once no message is left, when reading
/// stops for want of room, and how a frame is queued.
extension ChannelWebSocket.Engine {
  /// Why nothing more may be sent, if so.
  static func refusal(_ state: State) -> HTTPError? {
    if let failure = state.failure { return failure }
    guard !state.sentClose, !state.isFinished else {
      return .transport(.networkConnectionLost, reason: "the WebSocket connection is closed")
    }
    return nil
  }

  /// What a receiver gets once no message is left: `nil` after a close handshake, or
  /// why the connection failed; `nil` (keep waiting) while it is open or its last close
  /// frame is still going out.
  static func endOfMessages(_ state: State) -> Result<WebSocketMessage?, HTTPError>? {
    // The close frame after which the connection ends is still going out: the end is told
    // once it is out, so that a caller who then lets go does not cut it off.
    if state.endsAfterFlush, !state.isFinished { return nil }
    if let failure = state.failure { return .failure(failure) }
    if state.peerClosure != nil || state.sentClose { return .success(nil) }
    if state.isFinished {
      return .failure(
        .transport(.networkConnectionLost, reason: "the WebSocket connection ended"))
    }
    return nil
  }

  /// Whether the messages waiting for a caller fill the read-ahead, so that the channel is
  /// not read: at `readAhead`, or twice that while a ping waits for its pong behind them.
  static func isFull(_ state: State, readAhead: Int) -> Bool {
    state.inboxBytes >= (state.pingers.isEmpty ? readAhead : 2 * readAhead)
  }

  /// Whether the channel is to be read: the connection goes on, the peer has not closed,
  /// and there is room.
  static func reads(_ state: State, readAhead: Int) -> Bool {
    !state.isFinished && !state.stopsNow && state.peerClosure == nil && !state.endsAfterFlush
      && !isFull(state, readAhead: readAhead)
  }

  /// How many bytes may wait to be written before a sender waits for them.
  static let queuedBytesLimit: Int64 = 256 * 1024

  /// Adds `frame`, masked, to the bytes to send; returns the mark its last byte reaches.
  @discardableResult
  static func enqueue(_ frame: WebSocketFrame, _ state: inout State) -> Int64 {
    if state.masks.isEmpty { state.masks = randomMasks() }
    let bytes = frame.encoded(mask: state.masks.removeLast())
    state.outgoing.append(contentsOf: bytes)
    state.queued += Int64(bytes.count)
    return state.queued
  }

}

/// 256 masking keys from the system's randomness in one call (RFC 6455 §5.3 asks for keys
/// a server cannot predict), where one call per frame cost a system call per message.
private func randomMasks() -> [UInt32] {
  var masks = [UInt32](repeating: 0, count: 256)
  let filled = masks.withUnsafeMutableBytes { courier_random_bytes($0.baseAddress, $0.count) }
  if filled != 0 {
    var generator = SystemRandomNumberGenerator()
    masks = masks.map { _ in UInt32.random(in: 0...UInt32.max, using: &generator) }
  }
  return masks
}
