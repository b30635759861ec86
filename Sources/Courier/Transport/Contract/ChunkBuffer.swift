import Foundation

/// The bytes of a streamed ``TransportResponseBody`` between the transport, which writes them as they
/// arrive, and the reader, which takes them when it is ready: at most `memoryLimit` bytes in
/// memory, and the rest, in order, in an unlinked temporary file until read.
///
/// URLSession on Linux cannot pause a transfer (`suspend()` mid-transfer drops the
/// connection and starts again), so a reader that falls behind cannot slow the sender down;
/// holding the backlog on disk keeps memory bounded however slow the reader. The file is
/// unlinked as soon as it is made, so nothing is left on disk even if the process dies.
///
/// One writer and one reader at a time. The state is a value under a lock whose transitions
/// return what to do; file I/O and resuming continuations happen after the lock is released.
final class ChunkBuffer: Sendable {
  typealias End = Result<Void, HTTPError>

  private struct State {
    var memory: [Data] = []
    var memoryHead = 0
    var memoryBytes = 0
    var peakMemoryBytes = 0
    /// Bytes taken from the writer in all, and the most the reader accepts (``limit(to:)``).
    var written: Int64 = 0
    var limit: Int?
    var spill: SpoolFile?
    /// Bytes of the spill file written and committed, and read.
    var spillWritten: Int64 = 0
    var spillRead: Int64 = 0
    /// Whether the writer is writing to the spill file right now (outside the lock).
    var writing = false
    var end: End?
    var reader: CheckedContinuation<Void, Never>?
    /// Called once, with how, when the stream ends (``whenEnded(_:)``).
    var watchers: [@Sendable (End) -> Void] = []
    /// How the reader's side ended: the end taken, or the stream stopped (``whenRead(_:)``).
    var readEnd: End?
    var readWatchers: [@Sendable (End) -> Void] = []
    /// A writer that pauses its transfer rather than spill (``offer(_:)``) was refused a
    /// chunk and waits for room: called once the reader has made it.
    var onRoom: (@Sendable () -> Void)?

    /// Whether bytes wait in the spill file, or are on their way there.
    var spillPending: Bool { writing || spillRead < spillWritten }
  }

  /// What the writer does with a chunk, decided under the lock.
  private enum Store {
    case refused(HTTPError)
    /// The chunk would take the body past the reader's limit.
    case overLimit(Int)
    case dropped
    case kept(wake: CheckedContinuation<Void, Never>?)
    case spill(SpoolFile, offset: Int64)
    /// Memory is full and the writer pauses rather than spill.
    case full
  }

  /// What the reader does next, decided under the lock.
  private enum Take {
    case chunk(Data)
    case spilled(SpoolFile, offset: Int64, count: Int)
    case ended(End)
    case wait
  }

  /// The most bytes held in memory.
  let memoryLimit: Int
  private let state = Locked(State())
  private let trailerFields = Locked(HTTPHeaders())

  /// The trailer fields the writer gave with the end of the body.
  var trailers: HTTPHeaders {
    get { trailerFields.withLock { $0 } }
    set { trailerFields.withLock { $0 = newValue } }
  }
  /// Tells the transport to stop sending: called once, when the reader ends the stream
  /// before its end (cancelled, gone, over a limit).
  private let onStop: @Sendable (HTTPError) -> Void

  init(memoryLimit: Int, onStop: @escaping @Sendable (HTTPError) -> Void) {
    self.memoryLimit = max(1, memoryLimit)
    self.onStop = onStop
  }

  /// The most bytes that were ever held in memory at once.
  var peakMemoryBytes: Int { state.withLock { $0.peakMemoryBytes } }

  // MARK: - Writer

  /// Adds bytes from the transport; throws once the reader has ended the stream, which
  /// tells the transport to stop.
  func write(_ chunk: Data) throws(HTTPError) {
    _ = try offer(chunk, whenRoom: nil)
  }

  /// Adds bytes from a transport that can pause its transfer (CurlTransport): they are kept
  /// if memory has room for them (or holds nothing, so that a chunk larger than the buffer
  /// still passes), and refused otherwise, never spilled: then `whenRoom` is called once the
  /// reader has taken half the buffer, and the transport resumes the transfer. Without
  /// `whenRoom` (``write(_:)``), what memory has no room for is spilled instead. Throws once
  /// the reader has ended the stream. Returns whether the bytes were taken.
  func offer(_ chunk: Data, whenRoom: (@Sendable () -> Void)?) throws(HTTPError) -> Bool {
    guard !chunk.isEmpty else { return true }
    let memoryLimit = self.memoryLimit
    switch state.withLock({
      Self.store(chunk, in: &$0, memoryLimit: memoryLimit, whenFull: whenRoom)
    }) {
    case .refused(let error): throw error
    case .overLimit(let limit): throw overLimit(limit)
    case .dropped: return true
    case .full: return false
    case .kept(let wake):
      wake?.resume()
      return true
    case .spill(let file, let offset):
      let written = file.write(chunk, at: offset)
      let wake = state.withLock { state -> CheckedContinuation<Void, Never>? in
        state.writing = false
        if written { state.spillWritten += Int64(chunk.count) }
        return state.reader.take()
      }
      wake?.resume()
      if !written {
        let error = HTTPError.transport(URLError(.cannotWriteToFile))
        finish(.failure(error))
        throw error
      }
      return true
    }
  }

  /// Whether the stream has ended (written to its end, failed, or stopped), read or not.
  var hasEnded: Bool { state.withLock { $0.end != nil } }

  /// Whether bytes ever went to the spill file (a transport that pauses never spills).
  var hasSpilled: Bool { state.withLock { $0.spill != nil } }

  /// What becomes of `chunk`, decided under the lock: kept in memory while it fits, then
  /// spilled to disk, or, for a writer that pauses (`whenFull`), refused until the reader
  /// makes room.
  private static func store(
    _ chunk: Data, in state: inout State, memoryLimit: Int, whenFull: (@Sendable () -> Void)?
  ) -> Store {
    switch state.end {
    case .failure(let error)?: return .refused(error)
    case .success?: return .dropped
    case nil: break
    }
    if let limit = state.limit, state.written + Int64(chunk.count) > Int64(limit) {
      return .overLimit(limit)
    }
    let fits = state.memoryBytes + chunk.count <= memoryLimit
    if let whenFull {
      guard fits || state.memoryBytes == 0 else {
        state.onRoom = whenFull
        return .full
      }
    } else if state.spillPending || !fits {
      if state.spill == nil {
        guard let file = SpoolFile() else {
          return .refused(.transport(URLError(.cannotCreateFile)))
        }
        state.spill = file
      }
      state.writing = true
      state.written += Int64(chunk.count)
      return .spill(state.spill!, offset: state.spillWritten)
    }
    state.written += Int64(chunk.count)
    state.memory.append(chunk)
    state.memoryBytes += chunk.count
    state.peakMemoryBytes = max(state.peakMemoryBytes, state.memoryBytes)
    return .kept(wake: state.reader.take())
  }

  /// From now on, a chunk that takes what the writer has brought in all past `maximumBytes`
  /// ends the stream with ``HTTPError/responseTooLarge(limit:)`` after the bytes before it, and
  /// the writer's call throws that error, which stops the transfer: the reader would fail
  /// there when it came to it, and meanwhile a transport that cannot pause (URLSession on
  /// Linux) spools no more than the limit to disk for a hostile or endless body. When the
  /// writer has brought more than the limit already (the reader set it late, after a fast
  /// transport filled the buffer and paused for room), the stream ends so at once, and the
  /// transport is told to stop: a paused transport offers nothing more that could throw.
  func limit(to maximumBytes: Int) {
    let over = state.withLock { state -> HTTPError? in
      let limit = min(state.limit ?? .max, maximumBytes)
      state.limit = limit
      return state.written > Int64(limit) ? .responseTooLarge(limit: limit) : nil
    }
    if let over, finish(.failure(over)) { onStop(over) }
  }

  /// The body is over the reader's limit: it ends with that error, which the writer throws.
  private func overLimit(_ limit: Int) -> HTTPError {
    let error = HTTPError.responseTooLarge(limit: limit)
    finish(.failure(error))
    return error
  }

  /// Ends the stream after the bytes already in it: normally, or with `error`. The first
  /// end wins; returns whether it was this one.
  @discardableResult
  func finish(_ end: End) -> Bool {
    let (ended, reader, watchers) = state.withLock {
      state -> (Bool, CheckedContinuation<Void, Never>?, [@Sendable (End) -> Void]) in
      guard state.end == nil else { return (false, nil, []) }
      state.end = end
      let (reader, watchers) = Self.takeWaiters(&state)
      return (true, reader, watchers)
    }
    reader?.resume()
    for watcher in watchers { watcher(end) }
    return ended
  }

  // MARK: - Reader

  /// The next bytes, in order; `nil` after the end; throws the error the stream ended with
  /// once the bytes before it have been read. Cancelling the reader's task ends the stream
  /// with ``HTTPError/cancelled`` and stops the transport.
  func next() async throws(HTTPError) -> Data? {
    while true {
      let (take, room) = state.withLock { state in
        let take = Self.take(&state)
        guard state.onRoom != nil, state.memoryBytes <= memoryLimit / 2 else {
          return (take, nil as (@Sendable () -> Void)?)
        }
        return (take, state.onRoom.take())
      }
      room?()
      switch take {
      case .chunk(let chunk):
        return chunk
      case .spilled(let file, let offset, let count):
        guard let chunk = file.read(count, at: offset), chunk.count == count else {
          stop(.transport(URLError(.cannotOpenFile)))
          continue
        }
        state.withLock { state in
          state.spillRead += Int64(count)
          if state.spillRead == state.spillWritten && !state.writing {
            // Caught up: the file's space is used again from its start.
            state.spillRead = 0
            state.spillWritten = 0
          }
        }
        return chunk
      case .ended(.success):
        readerEnded(.success(()))
        return nil
      case .ended(.failure(let error)):
        readerEnded(.failure(error))
        throw error
      case .wait:
        await withTaskCancellationHandler {
          await withCheckedContinuation { continuation in
            let waits = state.withLock { state in
              guard case .wait = Self.peek(state) else { return false }
              precondition(state.reader == nil, "ChunkBuffer: two readers at once")
              state.reader = continuation
              return true
            }
            if !waits { continuation.resume() }
          }
        } onCancel: {
          stop(.cancelled)
        }
        if Task.isCancelled { stop(.cancelled) }
      }
    }
  }

  /// Ends the stream from the reader's side, with `error` (cancelled, gone, over a limit):
  /// bytes not yet read are dropped, the spill file closed, and the transport told to stop.
  func stop(_ error: HTTPError) {
    let (notify, reader, watchers, end) = state.withLock { state in
      // The transport is told only when the reader ends a stream still under way.
      let notify = state.end == nil
      if notify { state.end = .failure(error) }
      state.memory = []
      state.memoryHead = 0
      state.memoryBytes = 0
      state.spill = nil
      let (reader, watchers) = Self.takeWaiters(&state)
      return (notify, reader, watchers, state.end!)
    }
    reader?.resume()
    for watcher in watchers { watcher(end) }
    if notify { onStop(error) }
    readerEnded(.failure(error))
  }

  /// Calls `action` once the stream has ended — written to the end, failed, or stopped by the
  /// reader — with how: at once when it has, otherwise on the thread that ends it, after the
  /// lock is let go. `action` must not hold the body it watches (the buffer would keep it).
  func whenEnded(_ action: @escaping @Sendable (End) -> Void) {
    watch(\.end, \.watchers, action)
  }

  /// Calls `action` once, with how, when the reader's side has ended: it has taken the end
  /// (`nil`, or the error), or stopped the stream (cancelled, let go, over a limit) — on the
  /// reader's thread, never the writer's. At once when it has.
  func whenRead(_ action: @escaping @Sendable (End) -> Void) {
    watch(\.readEnd, \.readWatchers, action)
  }

  /// Calls `action` with the end at `end` once there is one: at once, or, kept in
  /// `watchers`, when it comes.
  private func watch(
    _ end: WritableKeyPath<State, End?>,
    _ watchers: WritableKeyPath<State, [@Sendable (End) -> Void]>,
    _ action: @escaping @Sendable (End) -> Void
  ) {
    let ended = state.withLock { state -> End? in
      if let ended = state[keyPath: end] { return ended }
      state[keyPath: watchers].append(action)
      return nil
    }
    if let ended { action(ended) }
  }

  /// The reader's side ended with `end`: the first time, its watchers are told.
  private func readerEnded(_ end: End) {
    let watchers = state.withLock { state -> [@Sendable (End) -> Void] in
      guard state.readEnd == nil else { return [] }
      state.readEnd = end
      defer { state.readWatchers = [] }
      return state.readWatchers
    }
    for watcher in watchers { watcher(end) }
  }

  /// Waits until the stream has ended and returns how. Cancelling the waiting task stops the
  /// stream.
  func ended() async -> End {
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        whenEnded { continuation.resume(returning: $0) }
      }
    } onCancel: {
      // The watcher gives up (its task was cancelled): the stream stops with it.
      stop(.cancelled)
    }
  }

  private static func takeWaiters(_ state: inout State) -> (
    CheckedContinuation<Void, Never>?, [@Sendable (End) -> Void]
  ) {
    defer {
      state.reader = nil
      state.watchers = []
    }
    return (state.reader, state.watchers)
  }

  private static func peek(_ state: State) -> Take {
    if state.memoryHead < state.memory.count { return .chunk(Data()) }
    if state.spillRead < state.spillWritten, let file = state.spill {
      return .spilled(file, offset: 0, count: 0)
    }
    if state.writing { return .wait }
    if let end = state.end { return .ended(end) }
    return .wait
  }

  private static func take(_ state: inout State) -> Take {
    switch peek(state) {
    case .chunk:
      let chunk = state.memory[state.memoryHead]
      state.memory[state.memoryHead] = Data()
      state.memoryHead += 1
      state.memoryBytes -= chunk.count
      if state.memoryHead == state.memory.count {
        state.memory.removeAll(keepingCapacity: true)
        state.memoryHead = 0
      }
      return .chunk(chunk)
    case .spilled:
      let count = Int(min(64 * 1024, state.spillWritten - state.spillRead))
      return .spilled(state.spill!, offset: state.spillRead, count: count)
    case let other:
      return other
    }
  }
}
