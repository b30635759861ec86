// Linux only: see Curl.swift.
#if canImport(FoundationNetworking)
  import Foundation

  /// A streamed request body on its way to libcurl: a task reads the body's chunks, at most
  /// `limit` bytes ahead of what libcurl has taken, and libcurl's read callback takes them.
  /// When there is nothing to take yet, the callback pauses sending (``read(into:)`` returns
  /// `nil` bytes and `waits`), and the next chunk has the driver unpause it (`ready`); while
  /// the feed is full, the task waits for libcurl to take bytes: back-pressure both ways.
  ///
  /// Sendable: its state is lock-guarded.
  final class CurlBodyFeed: Sendable {
    private struct State: Sendable {
      var chunks: [Data] = []
      var offset = 0
      var buffered = 0
      var ended = false
      var failure: HTTPError?
      /// libcurl found nothing and paused sending.
      var sendingPaused = false
      /// The reading task waits for room.
      var producer: CheckedContinuation<Void, Never>?
      var closed = false
    }

    private let state = Locked(State())
    private let limit = 256 * 1024
    private let task = Locked<Task<Void, Never>?>(nil)

    /// Starts reading `body`; `ready` is called (off libcurl's lock) when bytes come to a
    /// transfer whose sending paused for them.
    func start(reading body: TransportRequestBody, ready: @escaping @Sendable () -> Void) {
      let reader = Task { [self] in
        do throws(HTTPError) {
          for try await chunk in body.chunks() {
            guard await put(chunk, ready: ready) else { return }
          }
          finish(failure: nil, ready: ready)
        } catch {
          finish(failure: error, ready: ready)
        }
      }
      task.withLock { $0 = reader }
    }

    /// Copies the next bytes into `buffer`, under the driver's lock.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> CurlUpload.Read {
      var producer: CheckedContinuation<Void, Never>?
      defer { producer?.resume() }
      return state.withLock { state -> CurlUpload.Read in
        var copied = 0
        while copied < buffer.count, let chunk = state.chunks.first {
          let count = min(buffer.count - copied, chunk.count - state.offset)
          chunk.withUnsafeBytes { bytes in
            let start = bytes.startIndex + state.offset
            UnsafeMutableRawBufferPointer(rebasing: buffer[copied..<copied + count])
              .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]))
          }
          copied += count
          state.offset += count
          if state.offset == chunk.count {
            state.chunks.removeFirst()
            state.offset = 0
          }
        }
        state.buffered -= copied
        if copied > 0 {
          if state.buffered < limit {
            producer = state.producer.take()
          }
          return .bytes(copied)
        }
        if let failure = state.failure { return .failed(failure) }
        if state.ended { return .bytes(0) }
        state.sendingPaused = true
        return .waits
      }
    }

    /// Stops reading the body (the transfer has ended).
    func close() {
      let producer = state.withLock { state in
        state.closed = true
        state.chunks = []
        return state.producer.take()
      }
      producer?.resume()
      task.withLock { $0?.cancel() }
    }

    /// Adds a chunk, and waits while the feed is full; false once the feed is closed.
    private func put(_ chunk: Data, ready: @Sendable () -> Void) async -> Bool {
      guard !chunk.isEmpty else { return true }
      let wake = state.withLock { state -> Bool in
        guard !state.closed else { return false }
        state.chunks.append(chunk)
        state.buffered += chunk.count
        defer { state.sendingPaused = false }
        return state.sendingPaused
      }
      if wake { ready() }
      await withCheckedContinuation { continuation in
        let waits = state.withLock { state -> Bool in
          guard !state.closed, state.buffered >= limit else { return false }
          state.producer = continuation
          return true
        }
        if !waits { continuation.resume() }
      }
      return state.withLock { !$0.closed }
    }

    private func finish(failure: HTTPError?, ready: @Sendable () -> Void) {
      let wake = state.withLock { state -> Bool in
        state.ended = true
        state.failure = failure
        defer { state.sendingPaused = false }
        return state.sendingPaused
      }
      if wake { ready() }
    }
  }
#endif
