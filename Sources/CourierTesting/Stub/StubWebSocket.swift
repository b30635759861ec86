import Courier
import Foundation

/// The server's side of a WebSocket connection a ``StubTransport`` opened in memory (see
/// ``StubTransport/onWebSocket(_:subprotocol:_:)``): the client is Courier's own WebSocket
/// protocol, as over a network, on an in-memory connection, and this reads its frames
/// (masked, as a client's must be) and writes a server's.
///
/// When the route's handler returns, the server sends a close frame (with the client's code
/// when the client closed first, 1000 otherwise) and closes the connection once the client
/// has answered; when it throws, the connection drops without one. The client's pings get a
/// pong unless ``answersPings`` is off. Messages the handler has not received wait, up to
/// 1 MiB; past that the connection is not read, and the client's sends wait. Read from one
/// task at a time.
public final class StubWebSocket: Sendable {
  struct State: Sendable {
    var inbox: [WebSocketMessage] = []
    var inboxBytes = 0
    var receiver: CheckedContinuation<WebSocketMessage?, Never>?
    /// The reading task, waiting for room in the inbox.
    var roomWaiter: CheckedContinuation<Void, Never>?
    var answersPings = true
    /// The payloads of the pings held while pings go unanswered.
    var heldPings: [[UInt8]] = []
    var pings = 0
    var pingWatchers: [(count: Int, waiter: CheckedContinuation<Void, Never>)] = []
    /// The client's close frame, once it has arrived.
    var clientClose: WebSocketClosure?
    var sentClose = false
    /// The handler has returned: what the client still sends is dropped.
    var handlerReturned = false
    /// The connection has ended: dropped, or closed by the client.
    var isOver = false
    /// Waiting for the client's close frame or the end.
    var closeWatchers: [CheckedContinuation<Void, Never>] = []
  }

  let state = Locked(State())
  let channel: MemoryChannel
  /// How many bytes of messages may wait for the handler before the connection is not read.
  static let readAhead = 1 << 20

  init(channel: MemoryChannel) {
    self.channel = channel
  }

  /// The client's close frame, once it has sent one.
  public var closeFrame: WebSocketClosure? { state.withLock { $0.clientClose } }

  /// Sends `message` to the client, as one unmasked frame; returns once it is written (a
  /// client that does not read holds it back). A message over the client's limit makes the
  /// client close with 1009 and fail its reader with `HTTPError.responseTooLarge(limit:)`,
  /// as over a network. Throws ``StubWebSocketClosed`` once a close frame went out or the
  /// connection ended.
  public func send(_ message: WebSocketMessage) async throws {
    guard !state.withLock({ $0.sentClose || $0.isOver }) else { throw StubWebSocketClosed() }
    let frame =
      switch message {
      case .text(let text): WebSocketFrame(opcode: .text, payload: Array(text.utf8))
      case .binary(let data): WebSocketFrame(opcode: .binary, payload: Array(data))
      }
    do {
      try await channel.write(Data(frame.encoded()))
    } catch {
      throw StubWebSocketClosed()
    }
  }

  /// The client's next message; `nil` once the client has closed (``closeFrame``) or the
  /// connection has ended.
  public func receiveMessage() async -> WebSocketMessage? {
    await withCheckedContinuation { waiter in
      let (ready, room) = state.withLock { state -> (WebSocketMessage??, Waiter?) in
        if !state.inbox.isEmpty {
          let message = state.inbox.removeFirst()
          state.inboxBytes -= message.data.count
          return (message, Self.takeRoom(&state))
        }
        if state.clientClose != nil || state.isOver { return (.some(nil), nil) }
        state.receiver = waiter
        return (nil, nil)
      }
      room?.resume()
      if let ready { waiter.resume(returning: ready) }
    }
  }

  /// Whether the client's pings get a pong (as they do unless told otherwise): a server that
  /// has stopped answering, for tests of keep-alive. Pings held meanwhile are answered when
  /// it is turned back on.
  public var answersPings: Bool {
    get { state.withLock { $0.answersPings } }
    set {
      let held = state.withLock { state in
        state.answersPings = newValue
        defer { if newValue { state.heldPings = [] } }
        return newValue ? state.heldPings : []
      }
      for payload in held { post(WebSocketFrame(opcode: .pong, payload: payload)) }
    }
  }

  /// Echoes every message back until the client closes.
  public func echoUntilClosed() async throws {
    while let message = await receiveMessage() { try await send(message) }
  }

  /// Sends a close frame with `code` and `reason` (unless one went out already); the client
  /// answers with its own (``closeFrame``), after which ``receiveMessage()`` returns `nil`.
  public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
    let first = state.withLock { state in
      defer { state.sentClose = true }
      return !state.sentClose && !state.isOver
    }
    if first { post(.close(code, reason: reason)) }
  }

  /// Drops the connection without a close frame: the client's reader fails.
  public func drop() {
    end()
    channel.close()
  }

  /// How many pings the client has sent since the connection opened.
  package var pingsReceived: Int { state.withLock { $0.pings } }

  /// Returns once the client has sent `count` pings since the connection opened.
  package func pingsReceived(atLeast count: Int) async {
    await withCheckedContinuation { (waiter: Waiter) in
      let now = state.withLock { state in
        guard state.pings < count, !state.isOver else { return true }
        state.pingWatchers.append((count, waiter))
        return false
      }
      if now { waiter.resume() }
    }
  }

  // MARK: - The connection

  /// Reads the client's frames, `first` first (what came after the upgrade request), until
  /// its close frame or the end. A frame no client may send is answered with a close frame
  /// that says why.
  func read(after first: [UInt8]) async {
    var frames = WebSocketFrameReader(maximumPayload: 64 << 20, readsMaskedFrames: true)
    var messages = WebSocketMessageReader(maximumMessage: 64 << 20)
    frames.append(first)
    do {
      while true {
        while let frame = try frames.next() {
          if let output = try messages.read(frame), !apply(output) { return }
        }
        await room()
        guard let bytes = try await channel.read() else { break }
        frames.append(bytes)
      }
    } catch let failure as WebSocketFailure {
      close(code: failure.code, reason: failure.reason)
    } catch {}
    end()
  }

  /// The handler has returned: closes with the client's code (or 1000) unless a close frame
  /// went out, waits for the client's close frame or the end, and closes the connection.
  func handlerReturned() async {
    let code = closeFrame?.code
    close(code: code.flatMap { $0.isSendable ? $0 : nil } ?? .normalClosure)
    await withCheckedContinuation { (waiter: Waiter) in
      let (now, room) = state.withLock { state -> (Bool, Waiter?) in
        state.handlerReturned = true
        state.inbox = []
        state.inboxBytes = 0
        let room = Self.takeRoom(&state)
        if state.clientClose != nil || state.isOver { return (true, room) }
        state.closeWatchers.append(waiter)
        return (false, room)
      }
      room?.resume()
      if now { waiter.resume() }
    }
    channel.close()
    end()
  }

  private typealias Waiter = CheckedContinuation<Void, Never>

  /// Does what a frame from the client means; returns whether to read on (not after its
  /// close frame).
  private func apply(_ output: WebSocketMessageReader.Output) -> Bool {
    switch output {
    case .message(let message):
      let receiver = state.withLock { state -> CheckedContinuation<WebSocketMessage?, Never>? in
        guard !state.handlerReturned else { return nil }
        guard let receiver = state.receiver else {
          state.inbox.append(message)
          state.inboxBytes += message.data.count
          return nil
        }
        state.receiver = nil
        return receiver
      }
      receiver?.resume(returning: message)
    case .ping(let payload):
      let (answers, watchers) = state.withLock { state in
        state.pings += 1
        if !state.answersPings { state.heldPings.append(payload) }
        let pings = state.pings
        defer { state.pingWatchers.removeAll { $0.count <= pings } }
        return (state.answersPings, state.pingWatchers.filter { $0.count <= pings })
      }
      if answers { post(WebSocketFrame(opcode: .pong, payload: payload)) }
      for watcher in watchers { watcher.waiter.resume() }
    case .pong:
      break
    case .close(let code, let reason):
      let (receiver, watchers) = state.withLock { state in
        state.clientClose = WebSocketClosure(code: code ?? .noStatusReceived, reason: reason)
        defer {
          state.receiver = nil
          state.closeWatchers = []
        }
        return (state.receiver, state.closeWatchers)
      }
      receiver?.resume(returning: nil)
      for watcher in watchers { watcher.resume() }
      return false
    }
    return true
  }

  /// Waits while the messages the handler has not received fill the read-ahead.
  private func room() async {
    await withCheckedContinuation { (waiter: Waiter) in
      let now = state.withLock { state in
        guard state.inboxBytes >= Self.readAhead, !state.isOver else { return true }
        state.roomWaiter = waiter
        return false
      }
      if now { waiter.resume() }
    }
  }

  private static func takeRoom(_ state: inout State) -> Waiter? {
    guard state.inboxBytes < readAhead else { return nil }
    return state.roomWaiter.take()
  }

  private func post(_ frame: WebSocketFrame) {
    channel.post(Data(frame.encoded()))
  }

  /// The connection has ended: whoever waits is answered.
  private func end() {
    let (receiver, room, closers, pingers) = state.withLock { state in
      state.isOver = true
      defer {
        state.receiver = nil
        state.roomWaiter = nil
        state.closeWatchers = []
        state.pingWatchers = []
      }
      return (state.receiver, state.roomWaiter, state.closeWatchers, state.pingWatchers)
    }
    receiver?.resume(returning: nil)
    room?.resume()
    for closer in closers { closer.resume() }
    for pinger in pingers { pinger.waiter.resume() }
  }
}

/// A ``StubWebSocket`` sent to after its close frame went out or the connection ended.
public struct StubWebSocketClosed: Error, CustomStringConvertible {
  /// What happened.
  public var description: String { "the WebSocket connection has ended" }
}
