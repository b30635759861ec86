import Foundation
import Testing

@testable import Courier

/// A stream's size limit set after the transport has brought more than it: the reader sets it
/// once the head has reached it, and a fast transport may have filled the buffer and paused
/// for room by then.
@Suite("ChunkBuffer: a limit that comes late")
struct ChunkBufferLimitTests {
  /// A buffer of 1,000 bytes whose writer, like CurlTransport, pauses when it is full; and
  /// what its transport was told when the reader stopped it.
  func pausedBuffer() throws -> (ChunkBuffer, Locked<[HTTPError]>) {
    let stops = Locked<[HTTPError]>([])
    let buffer = ChunkBuffer(memoryLimit: 1000) { error in stops.withLock { $0.append(error) } }
    #expect(try buffer.offer(Data(count: 600), whenRoom: {}))
    #expect(try buffer.offer(Data(count: 600), whenRoom: {}) == false)  // full: paused
    return (buffer, stops)
  }

  @Test("under what has arrived: the stream ends over the limit, and the paused transport stops")
  func lateLimit() async throws {
    let (buffer, stops) = try pausedBuffer()
    buffer.limit(to: 256)
    #expect(stops.withLock { $0 } == [.responseTooLarge(limit: 256)])
    await #expect(throws: HTTPError.responseTooLarge(limit: 256)) {
      while try await buffer.next() != nil {}
    }
    #expect(throws: HTTPError.responseTooLarge(limit: 256)) {
      try buffer.offer(Data(count: 10), whenRoom: {})
    }
    buffer.limit(to: 100)
    #expect(stops.withLock { $0 }.count == 1)  // told once
  }

  @Test("over what has arrived: nothing changes, and the body goes on (the good path beside it)")
  func limitInTime() async throws {
    let (buffer, stops) = try pausedBuffer()
    buffer.limit(to: 10_000)
    #expect(stops.withLock { $0 }.isEmpty)
    #expect(try await buffer.next()?.count == 600)
  }
}
