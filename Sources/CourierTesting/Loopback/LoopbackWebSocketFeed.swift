import Courier
import Foundation

/// The bytes a WebSocket client sends, between the connection's reading thread and the test
/// reading frames: the thread appends what it receives, ``next()`` reads whole frames out of
/// it, unmasked and checked by ``WebSocketFrameReader`` as a server reads a client's.
///
/// The thread blocks while `limit` bytes wait unread, unless a reader waits for the rest of
/// a frame larger than that: a client sending faster than the test reads is then held back
/// by TCP, as by a real server.
///
/// `@unchecked Sendable`: its state is guarded by `condition`.
final class LoopbackWebSocketFeed: @unchecked Sendable {
  private typealias Waiter = CheckedContinuation<WebSocketFrame?, any Error>

  private let condition = NSCondition()
  private var reader: WebSocketFrameReader
  /// The client closed the connection (or it failed): nothing more arrives.
  private var ended = false
  /// The connection is closing: the reading thread is not held back any more.
  private var unlimited = false
  /// The handler has returned: what arrives is dropped.
  private var abandoned = false
  private var waiter: (id: Int, continuation: Waiter)?
  private var nextWaiterID = 0
  private let limit: Int

  /// A feed starting with `buffered`, the bytes that came after the request head. It holds
  /// back the reading thread at `limit` unread bytes, and refuses frames over `maximumPayload`.
  init(buffered: [UInt8], limit: Int = 1 << 20, maximumPayload: Int = 64 << 20) {
    reader = WebSocketFrameReader(maximumPayload: maximumPayload, readsMaskedFrames: true)
    reader.append(buffered)
    self.limit = limit
  }

  /// Adds received bytes (the reading thread); blocks while the test is behind.
  func append(_ bytes: ArraySlice<UInt8>) {
    condition.lock()
    while reader.bufferedCount >= limit, waiter == nil, !unlimited, !abandoned {
      condition.wait()
    }
    guard !abandoned else { return condition.unlock() }
    reader.append(bytes)
    let resumption = takeForWaiter()
    condition.unlock()
    resumption.map { $0.continuation.resume(with: $0.result) }
  }

  /// The client has closed the connection, or reading it failed (the reading thread).
  func finish() {
    condition.lock()
    ended = true
    let resumption = takeForWaiter()
    condition.unlock()
    resumption.map { $0.continuation.resume(with: $0.result) }
  }

  /// The connection is closing: the reading thread never waits for the test again.
  func stopHoldingBack() {
    condition.lock()
    unlimited = true
    condition.broadcast()
    condition.unlock()
  }

  /// The handler has returned: what is buffered and what still comes is dropped, and a
  /// waiting ``next()`` returns `nil`.
  func abandon() {
    condition.lock()
    abandoned = true
    reader = WebSocketFrameReader(maximumPayload: 0, readsMaskedFrames: true)
    condition.broadcast()
    let resumption = takeForWaiter()
    condition.unlock()
    resumption.map { $0.continuation.resume(with: $0.result) }
  }

  /// The next frame, waiting for it to arrive; `nil` once the connection has ended (a frame
  /// cut off by the end is dropped). Throws a `LoopbackError` for bytes that are not a
  /// frame a client may send, and `CancellationError` when the calling task is cancelled.
  func next() async throws -> WebSocketFrame? {
    let id = condition.withLock {
      defer { nextWaiterID += 1 }
      return nextWaiterID
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: Waiter) in
        condition.lock()
        let result: Result<WebSocketFrame?, any Error>?
        if Task.isCancelled {
          result = .failure(CancellationError())
        } else if waiter != nil {
          result = .failure(LoopbackError("receiveFrame() called while another call waits"))
        } else {
          result = take()
        }
        if result == nil {
          waiter = (id, continuation)
          condition.broadcast()  // the frame is longer than the limit: let the thread read on
        }
        condition.unlock()
        result.map { continuation.resume(with: $0) }
      }
    } onCancel: {
      condition.lock()
      var cancelled: Waiter?
      if let waiter, waiter.id == id {
        cancelled = waiter.continuation
        self.waiter = nil
      }
      condition.unlock()
      cancelled?.resume(throwing: CancellationError())
    }
  }

  /// The next frame, `nil` at the end, an error for a malformed frame, or `nil` (no result
  /// yet) until more bytes arrive. Called with the lock held.
  private func take() -> Result<WebSocketFrame?, any Error>? {
    guard !abandoned else { return .success(nil) }
    do {
      if let frame = try reader.next() {
        condition.broadcast()  // room for the reading thread
        return .success(frame)
      }
    } catch {
      return .failure(LoopbackError("the client sent a bad frame: \(error.reason)"))
    }
    return ended ? .success(nil) : nil
  }

  /// The waiter and what to resume it with, once there is a result; removes the waiter.
  /// Called with the lock held.
  private func takeForWaiter()
    -> (continuation: Waiter, result: Result<WebSocketFrame?, any Error>)?
  {
    guard let waiter, let result = take() else { return nil }
    self.waiter = nil
    return (waiter.continuation, result)
  }
}
