import Foundation

/// Reads a user's `AsyncSequence` of byte chunks as the `AsyncThrowingStream` of `Data` a
/// ``TransportRequestBody`` holds, a chunk at a time as the reader asks (no chunk is read ahead, so
/// the producer is held back by the network). Empty chunks are skipped.
enum ChunkPump {
  static func stream<Chunks: AsyncSequence & Sendable>(of chunks: Chunks)
    -> AsyncThrowingStream<Data, any Error> where Chunks.Element: DataProtocol
  {
    let iterator = IteratorBox(chunks.makeAsyncIterator())
    return AsyncThrowingStream {
      while let chunk = try await iterator.next() {
        if !chunk.isEmpty { return chunk as? Data ?? Data(chunk) }
      }
      return nil
    }
  }

  /// The sequence's iterator, advanced by the stream's one reader at a time.
  ///
  /// `@unchecked Sendable`: an `AsyncThrowingStream(unfolding:)` calls its closure for one
  /// `next()` at a time, so the iterator is never used by two tasks at once.
  private final class IteratorBox<Iterator: AsyncIteratorProtocol>: @unchecked Sendable {
    private var iterator: Iterator

    init(_ iterator: Iterator) {
      self.iterator = iterator
    }

    func next() async throws -> Iterator.Element? {
      try await iterator.next()
    }
  }
}
