import Foundation
import Testing

@testable import Courier

/// A byte channel in memory whose peer is the test: it pushes what the client reads, holds
/// or lets through what the client writes, and sees every write, read and close. The
/// engine's rules are tested on it with no socket and no thread of its own.
final class ScriptedChannel: TransportByteChannel {
  struct State {
    var incoming: [Data?] = []
    var reader: CheckedContinuation<Result<Data?, HTTPError>, Never>?
    /// Every byte the client wrote, in order.
    var written: [UInt8] = []
    /// Writes wait for ``letWritesThrough()`` while set.
    var holdsWrites = false
    var heldWrite: (bytes: Data, waiter: CheckedContinuation<Result<Void, HTTPError>, Never>)?
    var reads = 0
    var isClosed = false
  }

  let state = Locked(State())

  func read() async throws(HTTPError) -> Data? {
    let result = await withCheckedContinuation { waiter in
      let ready = state.withLock { state -> Result<Data?, HTTPError>? in
        state.reads += 1
        if state.isClosed { return .failure(.cancelled) }
        if !state.incoming.isEmpty { return .success(state.incoming.removeFirst()) }
        state.reader = waiter
        return nil
      }
      if let ready { waiter.resume(returning: ready) }
    }
    return try result.get()
  }

  func write(_ bytes: Data) async throws(HTTPError) {
    let result = await withCheckedContinuation { waiter in
      let ready = state.withLock { state -> Result<Void, HTTPError>? in
        if state.isClosed { return .failure(.cancelled) }
        if state.holdsWrites {
          state.heldWrite = (bytes, waiter)
          return nil
        }
        state.written += bytes
        return .success(())
      }
      if let ready { waiter.resume(returning: ready) }
    }
    try result.get()
  }

  func close() {
    let (reader, held) = state.withLock { state in
      state.isClosed = true
      defer {
        state.reader = nil
        state.heldWrite = nil
      }
      return (state.reader, state.heldWrite)
    }
    reader?.resume(returning: .failure(.cancelled))
    held?.waiter.resume(returning: .failure(.cancelled))
  }

  // MARK: - The test's side

  /// The peer sends `bytes` (`nil`: ends the stream).
  func push(_ bytes: Data?) {
    let reader = state.withLock {
      state -> CheckedContinuation<Result<Data?, HTTPError>, Never>? in
      guard let reader = state.reader else {
        state.incoming.append(bytes)
        return nil
      }
      state.reader = nil
      return reader
    }
    reader?.resume(returning: .success(bytes))
  }

  /// The peer sends `frame`, unmasked as a server's are.
  func push(_ frame: WebSocketFrame) {
    push(Data(frame.encoded()))
  }

  /// Writes wait from now on until let through.
  func holdWrites() {
    state.withLock { $0.holdsWrites = true }
  }

  /// Lets the write waiting (if any), and every later one, through.
  func letWritesThrough() {
    let held = state.withLock { state in
      state.holdsWrites = false
      defer { state.heldWrite = nil }
      if let held = state.heldWrite { state.written += held.bytes }
      return state.heldWrite
    }
    held?.waiter.resume(returning: .success(()))
  }

  var isClosed: Bool { state.withLock { $0.isClosed } }
  var hasHeldWrite: Bool { state.withLock { $0.heldWrite != nil } }
  var isReading: Bool { state.withLock { $0.reader != nil } }

  /// The frames the client wrote after its upgrade request (masked, as a client's are).
  func framesWritten() throws -> [WebSocketFrame] {
    let bytes = state.withLock { $0.written }
    guard let end = WebSocketUpgrade.endOfHead(bytes, from: 0) else { return [] }
    var reader = WebSocketFrameReader(maximumPayload: 1 << 24, readsMaskedFrames: true)
    reader.append(bytes[end...])
    var frames: [WebSocketFrame] = []
    while let frame = try reader.next() { frames.append(frame) }
    return frames
  }

  /// Answers the upgrade request once it has been written: with `101` and the right
  /// `Sec-WebSocket-Accept`, or with `answer` as given.
  func acceptUpgrade(then extra: [UInt8] = []) async {
    let request = await upgradeRequest()
    let key = request.split(separator: "\r\n").first { $0.hasPrefix("Sec-WebSocket-Key: ") }?
      .dropFirst("Sec-WebSocket-Key: ".count)
    let head =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      + "Sec-WebSocket-Accept: \(WebSocketHandshake.accept(for: String(key ?? "")))\r\n\r\n"
    push(Data(head.utf8) + extra)
  }

  /// The upgrade request, once written whole.
  func upgradeRequest() async -> String {
    await until { WebSocketUpgrade.endOfHead($0.written, from: 0) != nil }
    return String(decoding: state.withLock { $0.written }, as: UTF8.self)
  }

  /// Returns once `condition` holds of the channel's state.
  func until(_ condition: (State) -> Bool) async {
    while !state.withLock({ condition($0) }) { await Task.yield() }
  }
}

/// Returns once `condition` holds (each look after the other tasks have had a turn).
func eventually(_ condition: () -> Bool) async {
  while !condition() { await Task.yield() }
}
