import Courier
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One end of an in-memory connection (``pair()`` makes both): what one end writes, the other
/// reads, in order. Each way holds at most ``capacity`` unread bytes, as a socket's buffers
/// do (a write that finds room goes in whole), so a writer whose reader has stopped reading
/// waits, and nothing is read unless a read waits. Closing an end is a TCP close: its peer
/// reads what was written before, then the end, and the peer's writes fail.
final class MemoryChannel: TransportByteChannel {
  private typealias Waiter<Value> = CheckedContinuation<Result<Value, HTTPError>, Never>

  /// The bytes going one way, and who waits on them.
  private struct Pipe: Sendable {
    var bytes = Data()
    var reader: Waiter<Data?>?
    /// Writes waiting for room, in order; a post has no waiter.
    var writers: [(bytes: Data, waiter: Waiter<Void>?)] = []
    /// The writing end has closed: once `bytes` are read, the reader gets the end, or `failure`.
    var isEnded = false
    var failure: HTTPError?
    /// The reading end has closed: nothing more goes in.
    var isAbandoned = false
  }

  /// What to resume once the lock is released.
  private struct Resumptions {
    var readers: [(Waiter<Data?>, Result<Data?, HTTPError>)] = []
    var writers: [(Waiter<Void>, Result<Void, HTTPError>)] = []

    func run() {
      for (reader, outcome) in readers { reader.resume(returning: outcome) }
      for (writer, outcome) in writers { writer.resume(returning: outcome) }
    }
  }

  /// How many unread bytes each way holds before a writer waits.
  static let capacity = 64 * 1024

  /// Both ways: `pipes[0]` carries the bytes to the first end, `pipes[1]` to the second.
  private let pipes: Locked<[Pipe]>
  /// This end reads `pipes[side]` and writes `pipes[1 - side]`.
  private let side: Int

  private init(_ pipes: Locked<[Pipe]>, side: Int) {
    self.pipes = pipes
    self.side = side
  }

  /// The two ends of a new connection.
  static func pair() -> (MemoryChannel, MemoryChannel) {
    let pipes = Locked([Pipe(), Pipe()])
    return (MemoryChannel(pipes, side: 0), MemoryChannel(pipes, side: 1))
  }

  deinit {
    close()
  }

  func read() async throws(HTTPError) -> Data? {
    let side = side
    let outcome = await withCheckedContinuation { (waiter: Waiter<Data?>) in
      let resumptions = pipes.withLock { pipes -> Resumptions in
        guard !pipes[side].isAbandoned, pipes[side].reader == nil else {
          let refusal: HTTPError =
            pipes[side].isAbandoned
            ? .cancelled : .invalidRequest(reason: "another read is waiting")
          return Resumptions(readers: [(waiter, .failure(refusal))])
        }
        pipes[side].reader = waiter
        return Self.flow(&pipes[side])
      }
      resumptions.run()
    }
    return try outcome.get()
  }

  func write(_ bytes: Data) async throws(HTTPError) {
    let outcome = await withCheckedContinuation { (waiter: Waiter<Void>) in
      enqueue(bytes, waiter: waiter)
    }
    try outcome.get()
  }

  /// Writes `bytes` after what waits to be written, without waiting for room: for a few
  /// bytes (a close frame, a pong) from a caller that cannot wait. Dropped once closed.
  func post(_ bytes: Data) {
    enqueue(bytes, waiter: nil)
  }

  func close() {
    close(failing: nil)
  }

  /// Closes this end; the peer reads what was written, then `failure` when given (as a
  /// transport's error), or else the end.
  func close(failing failure: HTTPError?) {
    let side = side
    let resumptions = pipes.withLock { pipes -> Resumptions in
      guard !pipes[side].isAbandoned else { return Resumptions() }
      var resumptions = Resumptions()
      // The way in: nothing more is read, and the peer's writes fail.
      pipes[side].isAbandoned = true
      if let reader = pipes[side].reader { resumptions.readers = [(reader, .failure(.cancelled))] }
      resumptions.writers = pipes[side].writers.compactMap { $0.waiter }.map {
        ($0, .failure(.transport(URLError(.networkConnectionLost))))
      }
      pipes[side] = Pipe(isAbandoned: true)
      // The way out: what waits to be written is not; what was written is read, then the end.
      resumptions.writers += pipes[1 - side].writers.compactMap { $0.waiter }.map {
        ($0, .failure(.cancelled))
      }
      pipes[1 - side].writers = []
      pipes[1 - side].isEnded = true
      pipes[1 - side].failure = failure
      let flowing = Self.flow(&pipes[1 - side])
      resumptions.readers += flowing.readers
      return resumptions
    }
    resumptions.run()
  }

  private func enqueue(_ bytes: Data, waiter: Waiter<Void>?) {
    let side = side
    let resumptions = pipes.withLock { pipes -> Resumptions in
      let refusal: HTTPError? =
        pipes[side].isAbandoned
        ? .cancelled
        : pipes[1 - side].isAbandoned ? .transport(URLError(.networkConnectionLost)) : nil
      if let refusal {
        var refused = Resumptions()
        if let waiter { refused.writers = [(waiter, .failure(refusal))] }
        return refused
      }
      pipes[1 - side].writers.append((bytes, waiter))
      return Self.flow(&pipes[1 - side])
    }
    resumptions.run()
  }

  /// Moves waiting writes into `pipe` while it has room, and what it holds to a waiting
  /// reader.
  private static func flow(_ pipe: inout Pipe) -> Resumptions {
    var resumptions = Resumptions()
    func admit() {
      while pipe.bytes.count < capacity, !pipe.writers.isEmpty {
        let (bytes, waiter) = pipe.writers.removeFirst()
        pipe.bytes.append(bytes)
        if let waiter { resumptions.writers.append((waiter, .success(()))) }
      }
    }
    admit()
    guard let reader = pipe.reader else { return resumptions }
    if !pipe.bytes.isEmpty {
      resumptions.readers = [(reader, .success(pipe.bytes))]
      pipe.bytes = Data()
    } else if pipe.isEnded {
      resumptions.readers = [(reader, pipe.failure.map { .failure($0) } ?? .success(nil))]
    } else {
      return resumptions
    }
    pipe.reader = nil
    admit()
    return resumptions
  }
}
