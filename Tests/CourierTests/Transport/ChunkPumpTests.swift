import CourierTestSupport
import Foundation
import Testing

@testable import Courier

/// A user's sequence pumped into a request body: when the body's reader lets it go before its
/// end, the sequence is told, so that its producer stops instead of producing for nobody.
@Suite("ChunkPump: a body sequence let go before its end is told so")
struct ChunkPumpTests {
  /// A producer that never finishes, with one chunk ready, and a signal for its termination.
  static func endless() -> (AsyncStream<Data>, AsyncStream<Data>.Continuation, Signal) {
    let (chunks, producer) = AsyncStream<Data>.makeStream()
    let terminated = Signal()
    producer.onTermination = { _ in terminated.fire() }
    producer.yield(Data("one".utf8))
    return (chunks, producer, terminated)
  }

  @Test(
    "a reader cancelled between two chunks, which lets the stream go: the producer's stream terminates"
  )
  func cancelledBetweenChunks() async throws {
    let (chunks, producer, terminated) = Self.endless()
    let gate = Gate()
    let gotFirst = Signal()
    let reader = Task {
      var pumped = ChunkPump.stream(of: chunks).makeAsyncIterator()
      let first = try await pumped.next()
      gotFirst.fire()
      await gate.wait()  // cancelled here, outside next()
      let again = try await pumped.next()  // the pump answers nil at once, not asking chunks
      return (first, again)
    }
    await watched { await gotFirst.wait() }
    reader.cancel()
    gate.open()
    let (first, again) = try await reader.value
    #expect(first == Data("one".utf8))
    #expect(again == nil)
    await watched { await terminated.wait() }
    guard case .terminated = producer.yield(Data("two".utf8)) else {
      return #expect(Bool(false), "the producer's later yields are still taken")
    }
  }

  @Test("a pumped stream dropped after a chunk, not cancelled: the producer's stream terminates")
  func dropped() async throws {
    let (chunks, _, terminated) = Self.endless()
    do {
      var pumped = ChunkPump.stream(of: chunks).makeAsyncIterator()
      #expect(try await pumped.next() == Data("one".utf8))
    }
    await watched { await terminated.wait() }
  }
}
