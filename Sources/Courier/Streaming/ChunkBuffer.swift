import Foundation

/// The bytes of a streamed response between the transport, which delivers them as they
/// arrive, and the reader, which takes them when it is ready: at most `memoryLimit` bytes in
/// memory, and the rest, in order, in a temporary file until read.
///
/// On Linux, URLSession cannot pause a data task (`suspend()` mid-transfer drops the
/// connection and starts the request again from the beginning, sending the body twice), so
/// a reader that falls behind cannot slow the sender down. Holding the backlog on disk keeps
/// memory bounded however slow the reader; the file is deleted when the stream ends.
final class ChunkBuffer: Sendable {
  private struct State {
    var memory: [Data] = []
    var memoryBytes = 0
    var peakMemoryBytes = 0
    var spill: FileHandle?
    var spillURL: URL?
    var spillWritten: UInt64 = 0
    var spillRead: UInt64 = 0
    var spilledTotal: UInt64 = 0
    var end: Result<Void, HTTPError>?
    var waiter: CheckedContinuation<Void, Never>?

    var spillPending: Bool { spillRead < spillWritten }
  }

  /// The most bytes held in memory.
  let memoryLimit: Int
  private let state = Locked(State())

  init(memoryLimit: Int) {
    self.memoryLimit = max(1, memoryLimit)
  }

  deinit {
    discard()
  }

  /// The most bytes that were ever held in memory at once; for tests.
  var peakMemoryBytes: Int { state.withLock { $0.peakMemoryBytes } }
  /// Bytes that have gone through the temporary file so far; for tests.
  var spilledBytes: UInt64 { state.withLock { $0.spilledTotal } }

  /// Adds bytes from the transport; throws once the stream has ended with an error (the
  /// reader was cancelled or went away), which stops the transfer.
  func append(_ chunk: Data) throws(HTTPError) {
    guard !chunk.isEmpty else { return }
    let outcome = state.withLock { state -> Result<CheckedContinuation<Void, Never>?, HTTPError> in
      if case .failure(let error)? = state.end { return .failure(error) }
      guard state.end == nil else { return .success(nil) }
      if state.spillPending || state.memoryBytes + chunk.count > memoryLimit {
        if case .failure(let error) = Self.spill(chunk, into: &state) { return .failure(error) }
      } else {
        state.memory.append(chunk)
        state.memoryBytes += chunk.count
        state.peakMemoryBytes = max(state.peakMemoryBytes, state.memoryBytes)
      }
      defer { state.waiter = nil }
      return .success(state.waiter)
    }
    try outcome.get()?.resume()
  }

  /// Ends the stream, after the bytes already in it: normally, or with `error`. The first
  /// end wins.
  func finish(_ end: Result<Void, HTTPError>) {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard state.end == nil else { return nil }
      state.end = end
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume()
  }

  /// The next bytes, in order; `nil` after the end; throws the error the stream ended with
  /// once the bytes before it have been read. Cancelling the reader's task ends the stream
  /// with ``HTTPError/cancelled``.
  func next() async throws(HTTPError) -> Data? {
    while true {
      let ready = state.withLock { state -> Result<Data?, HTTPError>? in
        if !state.memory.isEmpty {
          let chunk = state.memory.removeFirst()
          state.memoryBytes -= chunk.count
          return .success(chunk)
        }
        if state.spillPending { return Self.unspill(from: &state).map { $0 } }
        switch state.end {
        case .success?: return .success(nil)
        case .failure(let error)?: return .failure(error)
        case nil: return nil
        }
      }
      if let ready { return try ready.get() }
      await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
          let waiting = state.withLock { state in
            guard state.memory.isEmpty, !state.spillPending, state.end == nil else {
              return false
            }
            state.waiter = continuation
            return true
          }
          if !waiting { continuation.resume() }
        }
      } onCancel: {
        finish(.failure(.cancelled))
      }
      if Task.isCancelled { finish(.failure(.cancelled)) }
    }
  }

  /// Deletes the temporary file, if any; later bytes are dropped.
  func discard() {
    let (handle, url) = state.withLock { state in
      if state.end == nil { state.end = .failure(.cancelled) }
      defer {
        state.spill = nil
        state.spillURL = nil
        state.memory = []
        state.memoryBytes = 0
      }
      return (state.spill, state.spillURL)
    }
    try? handle?.close()
    if let url { try? FileManager.default.removeItem(at: url) }
  }

  private static func spill(_ chunk: Data, into state: inout State) -> Result<Void, HTTPError> {
    do {
      if state.spill == nil {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
          "courier-stream-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
          throw URLError(.cannotCreateFile)
        }
        state.spill = try FileHandle(forUpdating: url)
        state.spillURL = url
      }
      try state.spill!.seek(toOffset: state.spillWritten)
      try state.spill!.write(contentsOf: chunk)
      state.spillWritten += UInt64(chunk.count)
      state.spilledTotal += UInt64(chunk.count)
      return .success(())
    } catch {
      return .failure(.transport(URLError(.cannotWriteToFile)))
    }
  }

  /// Reads up to 64 KiB from the temporary file; when all of it has been read, it starts
  /// again from the beginning.
  private static func unspill(from state: inout State) -> Result<Data, HTTPError> {
    do {
      try state.spill!.seek(toOffset: state.spillRead)
      let count = Int(min(64 * 1024, state.spillWritten - state.spillRead))
      let chunk = try state.spill!.read(upToCount: count) ?? Data()
      guard chunk.count == count else { throw URLError(.cannotOpenFile) }
      state.spillRead += UInt64(count)
      if state.spillRead == state.spillWritten {
        try state.spill!.truncate(atOffset: 0)
        state.spillRead = 0
        state.spillWritten = 0
      }
      return .success(chunk)
    } catch {
      return .failure(.transport(URLError(.cannotOpenFile)))
    }
  }
}
