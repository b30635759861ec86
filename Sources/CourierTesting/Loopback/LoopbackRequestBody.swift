import Courier
import Foundation

/// A request's body as the server reads it off the connection, chunk by chunk, for a
/// ``LoopbackServer`` made with `streamsRequestBodies`; otherwise the whole body as one chunk.
///
/// ```swift
/// let server = try LoopbackServer(streamsRequestBodies: true) { request, response in
///   try await response.writeHead()
///   for try await chunk in request.bodyChunks { try await response.write(chunk) }  // echo as it comes
///   try await response.finish()
/// }
/// ```
///
/// The server reads the socket only as fast as the handler takes chunks (at most 64 KiB
/// ahead), so a client sending faster is held back by TCP, as by a real server. It throws
/// when the client closes the connection before the body has ended.
public struct LoopbackRequestBody: AsyncSequence, Sendable {
  /// A chunk of the body.
  public typealias Element = Data

  let feed: Feed

  /// Reads the body's chunks.
  public func makeAsyncIterator() -> Iterator {
    Iterator(feed: feed)
  }

  /// Reads the body's chunks.
  public struct Iterator: AsyncIteratorProtocol {
    let feed: Feed

    /// The next chunk, or `nil` at the body's end.
    public mutating func next() async throws -> Data? {
      try await feed.next()
    }
  }

  /// The chunks between the connection's reading thread and the handler. The thread blocks
  /// while 64 KiB are waiting to be taken, unless the handler has ended.
  ///
  /// `@unchecked Sendable`: its state is guarded by `condition`.
  final class Feed: @unchecked Sendable {
    private let condition = NSCondition()
    private var chunks: [Data] = []
    private var queued = 0
    private var ended = false
    private var failure: (any Error)?
    private var abandoned = false
    private var waiter: CheckedContinuation<Data?, any Error>?
    private let limit = 64 * 1024

    /// A feed holding a whole body already read.
    static func whole(_ body: Data) -> Feed {
      let feed = Feed()
      if !body.isEmpty { feed.chunks = [body] }
      feed.ended = true
      return feed
    }

    /// Adds bytes (the reading thread); blocks while the handler is behind.
    func append(_ bytes: Data) {
      condition.lock()
      while queued >= limit && !abandoned { condition.wait() }
      guard !abandoned else { return condition.unlock() }
      let waiter = self.waiter
      self.waiter = nil
      if waiter == nil {
        chunks.append(bytes)
        queued += bytes.count
      }
      condition.unlock()
      waiter?.resume(returning: bytes)
    }

    /// The body has ended, or failed (the reading thread).
    func finish(throwing error: (any Error)? = nil) {
      condition.lock()
      ended = true
      failure = error
      let waiter = self.waiter
      self.waiter = nil
      condition.unlock()
      if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    /// The handler has ended: what still comes is dropped, and the reading thread never
    /// waits for it.
    func abandon() {
      condition.lock()
      abandoned = true
      chunks = []
      queued = 0
      condition.broadcast()
      condition.unlock()
    }

    func next() async throws -> Data? {
      try await withCheckedThrowingContinuation { continuation in
        condition.lock()
        if !chunks.isEmpty {
          let chunk = chunks.removeFirst()
          queued -= chunk.count
          condition.broadcast()
          condition.unlock()
          continuation.resume(returning: chunk)
        } else if ended {
          let failure = self.failure
          condition.unlock()
          if let failure {
            continuation.resume(throwing: failure)
          } else {
            continuation.resume(returning: nil)
          }
        } else {
          waiter = continuation
          condition.unlock()
        }
      }
    }
  }
}
