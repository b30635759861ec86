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
  /// `next()` at a time, so the iterator is never used by two tasks at once; when the box goes,
  /// nobody else has it.
  private final class IteratorBox<Iterator: AsyncIteratorProtocol>: @unchecked Sendable {
    private var iterator: Iterator
    /// Whether the sequence has ended or thrown: nothing to tell it when the box goes.
    private var ended = false

    init(_ iterator: Iterator) {
      self.iterator = iterator
    }

    func next() async throws -> Iterator.Element? {
      do {
        let element = try await iterator.next()
        if element == nil { ended = true }
        return element
      } catch {
        ended = true
        throw error
      }
    }

    deinit {
      guard !ended else { return }
      // Let go before its end (the exchange ended). A reader cancelled while it waited in
      // `next()` has told the sequence already; one cancelled between two chunks has not:
      // `AsyncThrowingStream(unfolding:)` then drops this box without asking it again. The
      // sequence is asked once more from a cancelled task, so that one which honours
      // cancellation ends and tells its producer (an AsyncStream's `onTermination` runs, and
      // its later yields are dropped), instead of producing for nobody.
      let orphan: any OrphanIterator = Orphan(iterator)
      Task { await orphan.askCancelled() }.cancel()
    }
  }

  /// An iterator nobody reads any more, asked one last time.
  private protocol OrphanIterator: Sendable {
    func askCancelled() async
  }

  /// An iterator nobody reads any more, moved to the task that asks it one last time.
  ///
  /// `@unchecked Sendable`: only that task touches it.
  private final class Orphan<Iterator: AsyncIteratorProtocol>: OrphanIterator, @unchecked Sendable {
    private var iterator: Iterator

    init(_ iterator: Iterator) {
      self.iterator = iterator
    }

    func askCancelled() async {
      _ = try? await iterator.next()
    }
  }
}
